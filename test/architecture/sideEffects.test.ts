import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The host entry files do nothing but side effects; package.json must say so or bundlers drop them. */
describe('worker host entries survive bundling', () => {
  for (const entry of ['./worker/hosts/serviceWorkerEntry.ts', './worker/hosts/sharedWorker.ts']) {
    it(`import '${entry}' keeps the broker`, async () => {
      const result = await build({
        stdin: { contents: `import '${entry}';`, resolveDir: process.cwd(), loader: 'ts' },
        bundle: true,
        write: false,
        format: 'esm',
        logLevel: 'silent',
      });
      const text = result.outputFiles[0]!.text;
      expect(text.length).toBeGreaterThan(10_000);
      expect(text).toContain('authbroker');
    });
  }
});
