import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownErrorCodes } from '../../protocol/errors/lineage.js';
import { knownErrorFamilies } from '../../protocol/errors/families.js';
import { advice } from '../../docs/errors/advice.js';
import { anchorOf, troubleshootingPage } from '../../scripts/docs/troubleshooting.js';

const root = resolve(import.meta.dirname, '../..');
const docs = join(root, 'docs');

/** The hand-written pages of the site (the reference and the troubleshooting page are generated). */
function pages(dir = docs): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name.startsWith('.') || name === 'reference' || name === 'public') return [];
    if (statSync(path).isDirectory()) return pages(path);
    return name.endsWith('.md') && path !== join(docs, 'guide/troubleshooting.md') ? [relative(docs, path)] : [];
  });
}

/** The headings' anchors of a page, as VitePress makes them (explicit `{#id}` first). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    const explicit = /\{#([\w-]+)\}\s*$/.exec(heading!);
    anchors.add(
      explicit
        ? explicit[1]!
        : heading!
            .toLowerCase()
            .replace(/[`'"()?,.:!]/g, '')
            .trim()
            .replace(/[\s_]+/g, '-'),
    );
  }
  return anchors;
}

describe('the troubleshooting page', () => {
  const page = troubleshootingPage();
  const own = [
    'INVALID_ARGUMENT',
    'HTTP_STATUS_ERROR',
    'PROTOCOL_ERROR',
    'NETWORK_OFFLINE',
    'NETWORK_UNREACHABLE',
    'BROKER_UNAVAILABLE',
    'UNSAFE_CREDENTIALS',
    'PASSKEYS_UNAVAILABLE',
  ];

  it('has a section, with advice, for every known error, every family and our own codes', () => {
    const expected = [...knownErrorCodes, ...Object.keys(knownErrorFamilies), ...own];
    for (const code of expected) {
      expect(page, code).toContain(`### \`${code}\` {#${anchorOf(code)}}`);
      const entry = (advice as Record<string, { means: string; do: string }>)[code];
      expect(entry?.means.length, code).toBeGreaterThan(10);
      expect(entry?.do.length, code).toBeGreaterThan(5);
    }
    expect(page.match(/^### /gm)?.length).toBe(Object.keys(advice).length);
  });

  it("gives a known error's status and family from the catalogue, and a family's members", () => {
    expect(page).toMatch(
      /### `ACCESS_TOKEN_EXPIRED` \{#access-token-expired\}\n\nThe service sends it; authbroker throws it as `KnownError` \(HTTP 401, family \[`INVALID_ACCESS_TOKEN`\]\(#invalid-access-token\)\)/,
    );
    expect(page).toMatch(/`isKnownError\(error, 'INVALID_ACCESS_TOKEN'\)` matches .*\[`ACCESS_TOKEN_EXPIRED`\]/);
    expect(page).toContain('authbroker throws it, as `ClientError`.');
  });
});

describe('the docs site', () => {
  const all = pages();

  it('has the pages the issue asks for', () => {
    for (const page of [
      'index.md',
      'guide/getting-started.md',
      'concepts/broker.md',
      'concepts/sessions.md',
      'concepts/kept-copy.md',
      'concepts/connectivity.md',
      'concepts/threat-model.md',
      'sign-in/password.md',
      'sign-in/one-time-code.md',
      'sign-in/magic-link.md',
      'sign-in/passkeys.md',
      'sign-in/oauth.md',
      'sign-in/mfa.md',
      'guide/teams.md',
      'guide/permissions.md',
      'guide/contact-channels.md',
      'guide/api-keys.md',
      'guide/server.md',
      'guide/administration.md',
      'guide/testing.md',
      'guide/devtools.md',
      'guide/browser-support.md',
      'guide/official-sdk.md',
      'guide/releases.md',
    ]) {
      expect(all, page).toContain(page);
    }
  });

  it('every internal link of a hand-written page leads to a page and, with a #, to a heading of it', () => {
    const troubleshooting = new Set(Object.keys(advice).map(anchorOf));
    const broken: string[] = [];
    for (const page of all) {
      const text = readFileSync(join(docs, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\((\/[^)\s]*)\)/g)) {
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        if (path.startsWith('/reference/')) continue; // generated; VitePress and TypeDoc check those links at build
        const file =
          path === '/' ? 'index.md' : path.endsWith('/') ? `${path.slice(1)}index.md` : `${path.slice(1)}.md`;
        if (file === 'guide/troubleshooting.md') {
          if (anchor !== undefined && !troubleshooting.has(anchor)) broken.push(`${page} → ${target}`);
          continue;
        }
        if (!existsSync(join(docs, file)) && !existsSync(join(docs, 'public', path.slice(1))))
          broken.push(`${page} → ${target}`);
        else if (anchor !== undefined && !anchorsOf(readFileSync(join(docs, file), 'utf8')).has(anchor))
          broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the home page lists the newcomer's questions, each linking to its answer", () => {
    const home = readFileSync(join(docs, 'index.md'), 'utf8');
    const questions = [...home.matchAll(/^\d\. \*\*(.+?)\*\* → \[.+?\]\((\/[^)]+)\)/gm)].map((m) => [m[1], m[2]]);
    expect(questions.map(([q]) => q)).toEqual([
      'How do I add Google sign-in?',
      'What does `BROKER_UNAVAILABLE` mean, and what do I do?',
      'How do I test my app against the emulator with a fake clock?',
      "Which hook replaces the official SDK's `useUser`?",
      'How do I start a new app against the emulator, then my own project?',
    ]);
    expect(questions.map(([, link]) => link)).toEqual([
      '/sign-in/oauth',
      '/guide/troubleshooting#broker-unavailable',
      '/guide/testing#the-clock',
      '/guide/official-sdk#hooks',
      '/guide/getting-started',
    ]);
  });

  it('the sidebar leaves room for the pages other changes add, listing each once its file exists', () => {
    const config = readFileSync(join(docs, '.vitepress/config.ts'), 'utf8');
    for (const slot of [
      '/guide/browser-extension',
      '/guide/anonymous-users',
      '/guide/project-permissions',
      '/guide/notification-preferences',
      '/guide/connected-accounts',
    ]) {
      expect(config).toMatch(new RegExp(`whenWritten\\('[^']+', '${slot}'\\)`));
    }
  });
});
