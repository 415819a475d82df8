import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownErrorCodes } from '../../protocol/errors/lineage.js';
import { knownErrorFamilies } from '../../protocol/errors/families.js';
import { advice } from '../../docs/errors/advice.js';
import { anchorOf, troubleshootingPage } from '../../scripts/docs/troubleshooting.js';
import { deadLinks, servedPath, type BuiltPage } from '../../scripts/docs/deadAnchors.js';
import { inputsFingerprint, upToDate } from '../../scripts/docs/generate.js';
import { miniSearch, rankingProblems } from '../../scripts/docs/searchRanking.js';
import { linkAnchor, withLinkAnchors } from '../../scripts/docs/typedocAnchors.mjs';
import { referenceSidebars } from '../../docs/.vitepress/referenceSidebar.js';
import { referenceForSearch, searchOptions } from '../../docs/.vitepress/search.js';

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
        if (path.startsWith('/reference/')) continue; // generated: the build checks them, anchors too
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

describe('the built site’s links, to their anchors (issue 40)', () => {
  const page = (path: string, html: string): BuiltPage => ({ path, html });
  const team = page(
    '/reference/authbroker/interfaces/ClientTeam',
    '<h1 id="interface-clientteam">ClientTeam</h1><a id="property-display-name"></a><a href="#interface-clientteam">#</a>',
  );

  it('finds a link whose page has no element with its anchor, and one to no page at all', () => {
    const server = page(
      '/reference/authbroker/interfaces/ServerTeam',
      '<a href="./ClientTeam#property-display_name">display_name</a> <a href="/reference/authbroker/interfaces/Gone">gone</a>',
    );
    expect(deadLinks([team, server])).toEqual([
      { from: server.path, href: './ClientTeam#property-display_name', missing: 'anchor' },
      { from: server.path, href: '/reference/authbroker/interfaces/Gone', missing: 'page' },
    ]);
  });

  it('follows relative, absolute, same-page, index and percent-encoded links, and leaves external ones and files alone', () => {
    const guide = page(
      '/guide/testing',
      [
        '<a href="../reference/authbroker/interfaces/ClientTeam#property-display-name">a</a>',
        '<a href="/reference/authbroker/interfaces/ClientTeam.html#property%2Ddisplay%2Dname">b</a>',
        '<a href="#the-clock">c</a><h2 id="the-clock">The clock</h2>',
        '<a href="/reference/#modules">d</a>',
        '<a href="https://example.com/#nowhere">e</a><a href="mailto:a@b.c">f</a><a href="/broker.svg">g</a>',
      ].join(''),
    );
    const home = page('/reference/', '<h2 id="modules">Modules</h2>');
    expect(deadLinks([team, guide, home], (path) => path === '/broker.svg')).toEqual([]);
    expect(servedPath('reference/index.html')).toBe('/reference/');
    expect(servedPath('guide/testing.html')).toBe('/guide/testing');
  });

  it('fails the build: VitePress’s buildEnd throws on a dead anchor in the output', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'docs-site-'));
    try {
      mkdirSync(join(outDir, 'guide'));
      writeFileSync(join(outDir, 'index.html'), '<a href="/guide/testing#no-such-heading">x</a>');
      writeFileSync(join(outDir, 'guide/testing.html'), '<h1 id="testing-your-app">Testing</h1>');
      const { default: config } = await import('../../docs/.vitepress/config.js');
      await expect(config.buildEnd!({ outDir } as never)).rejects.toThrow(
        /1 dead internal link in the built docs:\n {2}\/ → \/guide\/testing#no-such-heading \(no such anchor\)/,
      );
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});

describe('the API reference’s property anchors (scripts/docs/typedocAnchors.mjs)', () => {
  it('are written as typedoc-vitepress-theme writes the links to them', () => {
    // What typedoc-plugin-markdown writes, and the link typedoc-vitepress-theme makes to it.
    const page =
      '| <a id="property-display_name"></a> `display_name` | `string` | [`ClientTeam`](ClientTeam.md).[`display_name`](ClientTeam.md#property-display-name) |';
    expect(withLinkAnchors(page, 'ServerTeam.md')).toBe(
      '| <a id="property-display-name"></a> `display_name` | `string` | [`ClientTeam`](ClientTeam.md).[`display_name`](ClientTeam.md#property-display-name) |',
    );
    expect(linkAnchor('property-access_token_expired')).toBe('property-access-token-expired');
    expect(linkAnchor('property-displayName')).toBe('property-displayname');
    expect(linkAnchor('2fa')).toBe('_2fa');
  });

  it('refuses two anchors of a page that would become one', () => {
    expect(() => withLinkAnchors('<a id="property-a_b"></a> <a id="property-a-b"></a>', 'X.md')).toThrow(
      'X.md: the anchors "property-a_b" and "property-a-b" would both be #property-a-b.',
    );
  });
});

describe('the reference’s sidebars (issue 40: each of ~570 pages carried all ~600 entries)', () => {
  const member = (folder: string, name: string) => ({ text: name, link: `${folder}${name}.md` });
  const tree = [
    {
      text: 'authbroker',
      link: '/reference/authbroker/',
      items: [
        {
          text: 'Namespaces',
          items: [
            {
              text: 'endpoints',
              link: '/reference/authbroker/namespaces/endpoints/',
              items: [
                {
                  text: 'Functions',
                  items: [member('/reference/authbroker/namespaces/endpoints/functions/', 'checkHealth')],
                },
              ],
            },
          ],
        },
        {
          text: 'Interfaces',
          items: ['ClientTeam', 'ServerTeam'].map((n) => member('/reference/authbroker/interfaces/', n)),
        },
        { text: 'Type Aliases', items: [member('/reference/authbroker/type-aliases/', 'Json')] },
        {
          text: 'react',
          link: '/reference/authbroker/react/',
          items: [{ text: 'Functions', items: [member('/reference/authbroker/react/functions/', 'useUser')] }],
        },
      ],
    },
  ];
  const sidebars = referenceSidebars(tree, { text: 'API reference', link: '/reference/' });

  it('has one sidebar per folder, listing the modules with the page’s own module and group open', () => {
    expect(Object.keys(sidebars).sort()).toEqual([
      '/reference/',
      '/reference/authbroker/',
      '/reference/authbroker/interfaces/',
      '/reference/authbroker/namespaces/endpoints/',
      '/reference/authbroker/namespaces/endpoints/functions/',
      '/reference/authbroker/react/',
      '/reference/authbroker/react/functions/',
      '/reference/authbroker/type-aliases/',
    ]);
    const modules = sidebars['/reference/authbroker/interfaces/']![1]!.items!;
    expect(modules.map((module) => module.text)).toEqual(['authbroker', 'authbroker › endpoints', 'authbroker/react']);
    expect(modules[0]!.items).toEqual([
      { text: 'Interfaces', items: tree[0]!.items[1]!.items },
      { text: 'Type Aliases', link: '/reference/authbroker/#type-aliases' },
    ]);
    expect(modules[1]).toEqual({ text: 'authbroker › endpoints', link: '/reference/authbroker/namespaces/endpoints/' });
    // The overview and a module's own page: every module closed, or only its groups.
    expect(sidebars['/reference/']![1]!.items!.every((module) => module.items === undefined)).toBe(true);
    expect(sidebars['/reference/authbroker/react/']![1]!.items![2]!.items).toEqual([
      { text: 'Functions', link: '/reference/authbroker/react/#functions' },
    ]);
  });

  it('lists a page’s neighbours, not every member of the reference', () => {
    const links = (items: readonly { link?: string; items?: readonly object[] }[]): number =>
      items.reduce((n, item) => n + (item.link ? 1 : 0) + links((item.items ?? []) as never), 0);
    // API reference, three modules, and the one function of the page's group.
    expect(links(sidebars['/reference/authbroker/react/functions/']!)).toBe(5);
    expect(JSON.stringify(sidebars['/reference/authbroker/react/functions/'])).not.toContain('ClientTeam');
  });
});

describe('the search (issue 40: a 1.1 MB index, guides ranked under reference entries)', () => {
  const reference = `# Interface: BrokerClient

The broker methods an app calls directly.

## Extends

- [\`BrokerActions\`](../type-aliases/BrokerActions.md)

## Properties

| Property | Modifier | Type | Description |
| ------ | ------ | ------ | ------ |
| <a id="property-mode"></a> \`mode\` | \`readonly\` | \`string\` | The host in use. |
| <a id="property-paths"></a> \`paths?\` | \`readonly\` | \`object\` | - |

## Methods

### signOut()

\`\`\`ts
signOut(): Promise<void>;
\`\`\`

Signs out in every tab.

#### Returns

\`Promise\`\\<\`void\`\\>

#### Inherited from

[\`BrokerApi\`](../../worker/interfaces/BrokerApi.md).[\`signOut\`](../../worker/interfaces/BrokerApi.md#signout)

## Type Alias: Json

\`\`\`ts
type Json = string;
\`\`\`
`;

  it('indexes a reference page by its headings, prose and member names only', () => {
    expect(referenceForSearch(reference, false)).toBe(
      [
        '# Interface: BrokerClient',
        '',
        'The broker methods an app calls directly.',
        '',
        'mode, paths',
        '',
        '### signOut()',
        '',
        'Signs out in every tab.',
        '',
        '## Type Alias: Json',
        '',
        'Json',
        '',
      ].join('\n'),
    );
    // A module's page: its summary; its tables list members with pages of their own.
    expect(
      referenceForSearch(
        '# authbroker/react\n\nHooks.\n\n## Functions\n\n| Function | Description |\n| --- | --- |\n| [useUser](functions/useUser.md) | The user. |\n',
        true,
      ),
    ).toBe('# authbroker/react\n\nHooks.\n');
  });

  const boostDocument = searchOptions.miniSearch!.searchOptions!.boostDocument!;

  it('ranks a reference entry below the guides, in the browser as in Node', () => {
    // VitePress sends the function to the browser as its source text (serializeFunctions).
    const sent = new Function(`return ${boostDocument.toString()}`)() as typeof boostDocument;
    for (const boost of [boostDocument, sent]) {
      expect(boost('/concepts/broker#three-hosts', 'sharedworker', { title: 'Three hosts' })).toBe(1);
      expect(boost('/concepts/broker#the-broker-and-its-hosts', 'broker', { title: 'The broker and its hosts' })).toBe(
        2,
      );
      expect(boost('/guide/troubleshooting#broker-closed', 'closed', { title: 'BROKER_CLOSED' })).toBeCloseTo(1.4);
      expect(
        boost('/reference/authbroker/client/interfaces/Capabilities', 'sharedworker', {
          title: 'Interface: Capabilities',
        }),
      ).toBe(0.1);
      expect(boost('/reference/authbroker/react/functions/useUser', 'useuser', { title: 'Function: useUser()' })).toBe(
        0.45,
      );
      expect(
        boost('/reference/authbroker/worker/interfaces/QuerySnapshot', 'querysnapshot', {
          title: 'Interface: QuerySnapshot&lt;T&gt;',
        }),
      ).toBe(0.45);
    }
  });

  it('the ranking check fails an index that puts a reference entry first, and passes the same with the site’s options', () => {
    const MiniSearch = miniSearch();
    const index = new MiniSearch({ fields: ['title', 'titles', 'text'], storeFields: ['title', 'titles'] });
    const guide = (id: string, title: string, text: string) => ({ id, title, titles: [], text });
    const entry = (id: string, title: string, parent: string) => ({
      id,
      title,
      titles: [parent],
      text: 'sharedWorker: SharedWorker',
    });
    index.addAll([
      entry('/reference/authbroker/client/interfaces/Capabilities#properties', 'Properties', 'Interface: Capabilities'),
      entry(
        '/reference/authbroker/client/functions/detectCapabilities#parameters',
        'Parameters',
        'Function: detectCapabilities()',
      ),
      guide(
        '/concepts/broker#the-broker-and-its-hosts',
        'The broker and its hosts',
        'One broker per origin, in a SharedWorker, else a service worker, else the page. A SharedWorker is shared by the tabs.',
      ),
      guide(
        '/guide/browser-support#browser-support',
        'Browser support',
        'Which browsers have SharedWorker, and which have none.',
      ),
      guide(
        '/guide/getting-started#the-app',
        'The app',
        'The client starts the broker in a SharedWorker, bundled by Vite as a module worker.',
      ),
    ]);
    const json = JSON.stringify(index);
    const expectation = [{ query: 'SharedWorker', page: '/concepts/broker', within: 1 }];
    const vitepressDefaults = { fuzzy: 0.2, prefix: true, boost: { title: 4, text: 2, titles: 1 } };
    expect(rankingProblems(json, vitepressDefaults, expectation)).toEqual([
      expect.stringMatching(/^"SharedWorker": \/concepts\/broker should be first; the results are \/reference\//),
      expect.stringMatching(/^"SharedWorker": the reference entry \/reference\/.* is in the first 3/),
    ]);
    expect(rankingProblems(json, searchOptions.miniSearch!.searchOptions!, expectation)).toEqual([]);
  });

  it('the search box says the index is loading until it has arrived, which starts before the first search', () => {
    const css = readFileSync(join(docs, '.vitepress/theme/searchIndex.css'), 'utf8');
    expect(css).toMatch(
      /html\.search-index-loading \.VPLocalSearchBox \.shell::after \{\s*content: 'Loading the search index…';/,
    );
    const preload = readFileSync(join(docs, '.vitepress/theme/searchIndex.ts'), 'utf8');
    expect(preload).toMatch(/requestIdleCallback\(load/);
    expect(preload).toMatch(/classList\.remove\('search-index-loading'\)/);
  });
});

describe('the docs site’s build (issue 40: 201 MB, TypeDoc on every `npm run docs`, no favicon)', () => {
  it('makes the generated pages again only when what they are made from has changed', () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['docs:generate']).toBe('tsx scripts/docs/generate.ts');
    expect(scripts.docs).toMatch(/^npm run docs:generate && vitepress dev docs/);
    expect(inputsFingerprint()).toMatch(/^[0-9a-f]{64}$/);
    expect(inputsFingerprint()).toBe(inputsFingerprint());
    expect(upToDate('not what made them')).toBe(false);
  });

  it('keeps the page list and site data out of each page, and serves a favicon', async () => {
    const { default: config } = await import('../../docs/.vitepress/config.js');
    expect(config.metaChunk).toBe(true);
    expect(config.head).toContainEqual(['link', expect.objectContaining({ rel: 'icon', href: '/favicon.ico' })]);
    const icon = readFileSync(join(docs, 'public/favicon.ico'));
    // An ICO file (reserved 0, type 1) of PNG images.
    expect([...icon.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(icon.subarray(0, 100).includes(Buffer.from('PNG'))).toBe(true);
  });
});
