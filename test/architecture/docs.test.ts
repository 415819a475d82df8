import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

describe('what the documentation shows is what the code takes', () => {
  it("the sharedWorker option's doc comment shows the README's factory, which takes the worker name", () => {
    const factory = /sharedWorker: (\(name\) => new SharedWorker\(.+?\)),$/m.exec(read('README.md'))?.[1];
    expect(factory).toBe("(name) => new SharedWorker(new URL('authbroker/worker/shared', import.meta.url), { type: 'module', name })");
    const comment = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*sharedWorker\?:/.exec(read('client/options.ts'))?.[1];
    expect(comment?.replace(/\s*\n\s*\*\s*/g, ' ')).toContain(`\`${factory}\``);
  });
});

describe("the README's table for people coming from the Stack SDK", () => {
  it('names only what authbroker has: exports, client methods, server app methods', async () => {
    const readme = read('README.md');
    const table = readme.slice(readme.indexOf('### Coming from the Stack SDK'));
    const rows = [...table.matchAll(/^\| `([A-Za-z]+)[^|]*\| `[^|]+` \|$/gm)].map((match) => match[1]!);
    expect(rows.length).toBeGreaterThan(25);

    const [client, react, server, { actionNames }] = await Promise.all([
      import('../../client/index.js'),
      import('../../client/react/index.js'),
      import('../../protocol/server.js'),
      import('../../contract/actions.js'),
    ]);
    const browser = client.createBrokerClient({ baseUrl: 'http://127.0.0.1:1', projectId: '00000000-0000-4000-8000-000000000001', publishableClientKey: 'pck_x' });
    const app = server.createServerApp({ baseUrl: 'http://127.0.0.1:1', projectId: '00000000-0000-4000-8000-000000000001', secretServerKey: 'ssk_x' });
    const known = new Set([...Object.keys(client), ...Object.keys(react), ...Object.keys(server), ...actionNames, ...Object.keys(browser), ...Object.keys(app)]);
    expect(rows.filter((name) => !known.has(name))).toEqual([]);
  });
});
