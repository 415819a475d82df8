import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guideFiles } from '../package/support/readme.js';

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

describe('what the documentation shows is what the code takes', () => {
  it("the sharedWorker option's doc comment shows the README's factory, which takes the worker name", () => {
    const factory = /sharedWorker: (\(name\) => new SharedWorker\(.+?\)),$/m.exec(read('README.md'))?.[1];
    expect(factory).toBe(
      "(name) => new SharedWorker(new URL('authbroker/worker/shared', import.meta.url), { type: 'module', name })",
    );
    const comment = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*sharedWorker\?:/.exec(read('client/connectOptions.ts'))?.[1];
    expect(comment?.replace(/\s*\n\s*\*\s*/g, ' ')).toContain(`\`${factory}\``);
  });
});

describe("the docs' tables for people coming from the official SDK", () => {
  it('names only what authbroker has: exports, client methods, server app methods', async () => {
    const table = read('docs/guide/official-sdk.md');
    const rows = [...table.matchAll(/^\| `([A-Za-z]+)[^|]*\| `[^|]+` \|$/gm)].map((match) => match[1]!);
    expect(rows.length).toBeGreaterThan(25);

    const [client, react, server, { actionNames }] = await Promise.all([
      import('../../client/index.js'),
      import('../../client/react/index.js'),
      import('../../protocol/server.js'),
      import('../../contract/actions.js'),
    ]);
    const browser = client.createBrokerClient({
      baseUrl: 'http://127.0.0.1:1',
      projectId: '00000000-0000-4000-8000-000000000001',
      publishableClientKey: 'pck_x',
    });
    const app = server.createServerApp({
      baseUrl: 'http://127.0.0.1:1',
      projectId: '00000000-0000-4000-8000-000000000001',
      secretServerKey: 'ssk_x',
    });
    const known = new Set([
      ...Object.keys(client),
      ...Object.keys(react),
      ...Object.keys(server),
      ...actionNames,
      ...Object.keys(browser),
      ...Object.keys(app),
    ]);
    expect(rows.filter((name) => !known.has(name))).toEqual([]);
  });
});

describe("the getting-started guide's app runs against the emulator as it is written", () => {
  const files = () => guideFiles();
  const guide = () => read('docs/guide/getting-started.md');

  it("its client and server use the emulator's demo project (fixed id and key) at the emulator's default address, values the client accepts", async () => {
    const { DEFAULT_DEMO_PROJECT } = await import('../../emulator/state/seed.js');
    const main = files()['src/main.tsx']!;
    expect(main).toContain("baseUrl: 'http://127.0.0.1:8102'");
    expect(main).toContain(`projectId: '${DEFAULT_DEMO_PROJECT.id}'`);
    expect(main).toContain(`publishableClientKey: '${DEFAULT_DEMO_PROJECT.publishableClientKey}'`);
    expect(files()['server.ts']).toContain(`projectId: '${DEFAULT_DEMO_PROJECT.id}'`);
    expect(read('emulator/cli.ts')).toMatch(/--port N +Port to listen on \(default 8102/);
    // No placeholder is left for a newcomer to keep by mistake.
    for (const code of Object.values(files())) expect(code).not.toMatch(/'…'|'pck_…'/);
    const client = await import('../../client/index.js');
    expect(() =>
      client.createBrokerClient({
        baseUrl: 'http://127.0.0.1:8102',
        projectId: DEFAULT_DEMO_PROJECT.id,
        publishableClientKey: DEFAULT_DEMO_PROJECT.publishableClientKey,
        mode: 'in-process',
      }),
    ).not.toThrow();
  });

  it('says how to get both packages before they are on the registry, with the tarballs this repository packs', () => {
    const readme = guide();
    const version = (path: string) => (JSON.parse(read(path)) as { name: string; version: string }).version;
    const rootPackage = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(readme).toContain('`npm install authbroker` answers 404');
    expect(readme).toContain('npm run pack:local');
    expect(rootPackage.scripts['pack:local']).toBeDefined();
    expect(readme).toContain(`npm install ../authbroker/.packs/authbroker-${version('package.json')}.tgz`);
    expect(readme).toContain(
      `npm install --save-dev ../authbroker/.packs/authbroker-emulator-${version('emulator/package.json')}.tgz`,
    );
  });

  it('names the hook that gives isStale and updatedAt, and shows it in the example', () => {
    const readme = guide();
    expect(readme).toContain(
      "`useUser` returns the plain user; whether it is that kept copy, not yet confirmed by the broker, is `isStale` from `useQuery({ kind: 'currentUser' })`, with `updatedAt`",
    );
    expect(files()['src/main.tsx']).toContain("const { isStale, updatedAt } = useQuery({ kind: 'currentUser' });");
  });

  it('shows a connectivity banner with useConnectivity and its states', () => {
    const main = files()['src/main.tsx']!;
    expect(main).toContain('const connectivity = useConnectivity();');
    // The three states, and offline told apart from a service that does not answer (issue 40, item 2).
    expect(main).toMatch(
      /connectivity\.state === 'online'[\s\S]*connectivity\.state === 'degraded'[\s\S]*connectivity\.browserOnline === false[\s\S]*connectivity\.lastError\?\.message/,
    );
    expect(main).toContain('<ConnectivityBanner />');
    expect(guide()).toMatch(/`online` \(answers arrive\), `degraded` \(.*\) or `offline` \(/);
  });

  it('its sign-in page leaves once someone is signed in, in this tab or another', () => {
    const main = files()['src/main.tsx']!;
    const signIn = main.slice(main.indexOf('function SignIn()'));
    expect(signIn).toMatch(
      /const \{ status \} = useUserState\(\);\s*useEffect\(\(\) => \{[\s\S]*if \(status === 'signed-in'\) location\.assign\(readReturnTo/,
    );
  });
});
