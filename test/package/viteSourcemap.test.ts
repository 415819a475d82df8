import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { declaredDependencies, repoRoot, run, scratchApp, writeFiles } from './support/scratch.js';

/**
 * `authbroker/vite` emits the service worker's source map as the app's `build.sourcemap` asks for
 * the app's own scripts (Vite's meaning of each value): a production build without source maps
 * ships none of ours either (705 kB beside a 139 kB script).
 */
describe('authbroker/vite in vite build follows the app’s build.sourcemap', () => {
  let app = '';
  const shipped = () =>
    readFileSync(join(app, 'node_modules/authbroker/dist/authbroker-service-worker.js.map'), 'utf8');

  beforeAll(async () => {
    app = await scratchApp('vite-sourcemap-app', {
      tarballs: ['authbroker'],
      dependencies: Object.keys(declaredDependencies(repoRoot)),
      devDependencies: ['vite'],
    });
    writeFiles(app, {
      'index.html': '<!doctype html><html><body><script type="module" src="/main.js"></script></body></html>\n',
      'main.js': "document.body.append('app');\n",
    });
  });

  /** Builds the app with `sourcemap` into its own folder; what the service worker became there. */
  async function buildWith(
    sourcemap: string,
    pluginOptions = '',
  ): Promise<{ script: string; map: string | null; files: string[] }> {
    const outDir = `dist-${sourcemap.replace(/\W/g, '')}${pluginOptions === '' ? '' : '-options'}`;
    writeFiles(app, {
      [`vite.${outDir}.config.js`]: `import { authbroker } from 'authbroker/vite';
export default { plugins: [authbroker(${pluginOptions})], logLevel: 'warn', build: { outDir: '${outDir}', sourcemap: ${sourcemap} } };
`,
    });
    const built = await run(
      join(app, 'node_modules/.bin/vite'),
      ['build', '--config', `vite.${outDir}.config.js`],
      app,
    );
    if (built.code !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);
    const out = join(app, outDir);
    const mapPath = join(out, 'authbroker-service-worker.js.map');
    const files = readdirSync(join(out, 'assets'));
    return {
      script: readFileSync(join(out, 'authbroker-service-worker.js'), 'utf8'),
      map: existsSync(mapPath) ? readFileSync(mapPath, 'utf8') : null,
      files,
    };
  }

  it('off (the default): neither the app nor the service worker has a map, and the script names none', async () => {
    const { script, map, files } = await buildWith('false');
    expect(files.some((file) => file.endsWith('.map'))).toBe(false);
    expect(map).toBeNull();
    expect(script).not.toContain('sourceMappingURL');
  });

  it('true: the map beside the script, which names it', async () => {
    const { script, map, files } = await buildWith('true');
    expect(files.some((file) => file.endsWith('.js.map'))).toBe(true);
    expect(map).toBe(shipped());
    expect(script.trimEnd().endsWith('//# sourceMappingURL=authbroker-service-worker.js.map')).toBe(true);
  });

  it("'hidden': the map is emitted, and the script does not name it", async () => {
    const { script, map } = await buildWith("'hidden'");
    expect(map).toBe(shipped());
    expect(script).not.toContain('sourceMappingURL');
  });

  it("'inline': the map inside the script, no file beside it", async () => {
    const { script, map } = await buildWith("'inline'");
    expect(map).toBeNull();
    const inline = /\/\/# sourceMappingURL=data:application\/json;charset=utf-8;base64,(\S+)\s*$/.exec(script);
    expect(Buffer.from(inline![1]!, 'base64').toString('utf8')).toBe(shipped());
  });

  it('appRequests: true emits the service worker with the app’s own requests under the same name', async () => {
    const { script } = await buildWith('false', '{ appRequests: true }');
    const appBundle = readFileSync(join(app, 'node_modules/authbroker/dist/authbroker-service-worker-app.js'), 'utf8');
    expect(script.trim()).toBe(appBundle.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '').trim());
    expect(script.trim()).not.toBe(
      readFileSync(join(app, 'node_modules/authbroker/dist/authbroker-service-worker.js'), 'utf8')
        .replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '')
        .trim(),
    );
  });
});
