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
