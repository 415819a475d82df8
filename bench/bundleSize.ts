/**
 * 5. Bundle size (esbuild, minified, gzip -9): our tab side with its lazy chunks, the passkey
 * module, the worker, and other browser auth clients bundled for the same job.
 */
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { compiledAheadPlugin } from '../scripts/compiledAhead.mjs';
import { buildWorker, workerBundles } from '../scripts/workerBundles.mjs';
import { BENCH, fmt, packageVersion, ROOT, type BenchResult, type Flags } from './harness.js';
import { inPageAsShipped, inPageInputName } from './inPageBundle.js';

interface Chunk {
  file: string;
  entry: boolean;
  bytes: number;
  gzip: number;
  /** The inputs that make most of it. */
  mainInputs: string[];
  /** Minified bytes per input (package or file), largest first. */
  inputs: Array<[string, number]>;
  /** Chunks this one imports statically (loaded with it). */
  staticImports: string[];
}

const options = {
  absWorkingDir: ROOT,
  bundle: true,
  format: 'esm' as const,
  platform: 'browser' as const,
  target: 'es2022',
  minify: true,
  legalComments: 'none' as const,
  define: { 'process.env.NODE_ENV': '"production"' },
  jsx: 'automatic' as const,
  external: ['react', 'react-dom', 'react/jsx-runtime', 'react-dom/client'],
  write: false,
  metafile: true,
  logLevel: 'error' as const,
};

function shortInput(path: string): string {
  const m = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  const inPage = inPageInputName(path);
  if (inPage !== null) return inPage;
  return m ? m[1]! : path.replace(/^\.\.\//, '');
}

/** Bundles one entry with code splitting; returns every output chunk with its gzip size. */
function measure(entryFile: string, plugins: Plugin[] = []): Promise<Chunk[]> {
  return measureBuild(
    {
      ...options,
      entryPoints: [entryFile],
      outdir: '/virtual',
      splitting: true,
      chunkNames: '[name]-[hash]',
      plugins: [compiledAheadPlugin, ...plugins],
    },
    entryFile,
  );
}

/**
 * A worker script as `npm run build` makes it (scripts/workerBundles.mjs: esbuild, then the second minifier pass), in
 * memory.
 */
function measureWorker(bundle: BuildOptions): Promise<Chunk[]> {
  const entryFile = Object.values(bundle.entryPoints as Record<string, string>)[0]!;
  return measureBuild(
    { ...bundle, outdir: '/virtual', write: false, metafile: true, logLevel: 'error' },
    entryFile,
    buildWorker,
  );
}

/**
 * Bundles (and, for a worker, minifies again); every JavaScript output with its gzip size and its inputs (esbuild's
 * byte counts).
 */
async function measureBuild(
  buildOptions: BuildOptions,
  entryFile: string,
  bundle: (
    options: BuildOptions,
  ) => Promise<{ outputFiles?: Array<{ path: string; contents: Uint8Array }>; metafile?: Metafile }> = build,
): Promise<Chunk[]> {
  const result = await bundle({ ...buildOptions, write: false, metafile: true });
  const meta = result.metafile as Metafile;
  return result
    .outputFiles!.filter((f) => f.path.endsWith('.js'))
    .map((file) => {
      const key = Object.keys(meta.outputs).find((k) => file.path.endsWith(k.replace(/^.*virtual/, '')))!;
      const output = meta.outputs[key]!;
      const byPackage = new Map<string, number>();
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
        byPackage.set(shortInput(input), (byPackage.get(shortInput(input)) ?? 0) + bytesInOutput);
      const inputs = [...byPackage].sort((a, b) => b[1] - a[1]);
      const mainInputs = inputs.slice(0, 3).map(([name]) => name);
      // Dynamic imports are entry points in the metafile too: the entry is the one we asked for.
      const entry = output.entryPoint !== undefined && entryFile.endsWith(output.entryPoint.replace(/^(\.\.\/)+/, ''));
      const staticImports = output.imports
        .filter((i) => i.kind === 'import-statement' && !i.external)
        .map((i) => i.path.replace(/^.*virtual\//, ''));
      return {
        file: key.replace(/^.*virtual\//, ''),
        entry,
        bytes: file.contents.length,
        gzip: gzipSync(file.contents, { level: 9 }).length,
        mainInputs,
        inputs,
        staticImports,
      };
    });
}

const kB = (bytes: number) => `${fmt(bytes / 1000, 1)} kB`;

/** What a lazy chunk of the SharedWorker holds, and when it is fetched. */
function lazyWorkerPart(chunk: Chunk): string {
  if (chunk.inputs.some(([name]) => name.startsWith('worker/api/')))
    return 'the service methods, loaded on the first call of one';
  if (chunk.inputs.some(([name]) => name.startsWith('worker/diagnostics/')))
    return 'the devtools recorder, loaded on the first diagnostics query';
  return 'loaded on first use';
}

/** The entry and every chunk it imports statically: what loads before the app's code runs. */
function upFront(chunks: Chunk[]): Chunk[] {
  const byFile = new Map(chunks.map((c) => [c.file, c]));
  const seen = new Set<Chunk>();
  const visit = (chunk: Chunk | undefined) => {
    if (!chunk || seen.has(chunk)) return;
    seen.add(chunk);
    for (const file of chunk.staticImports) visit(byFile.get(file));
  };
  visit(chunks.find((c) => c.entry));
  return [...seen];
}

export async function bundleSize(_flags: Flags): Promise<BenchResult> {
  const asShipped = [await inPageAsShipped()];
  const tab = await measure(`${BENCH}sizes/tabSide.ts`, asShipped);
  const withMessages = await measure(`${BENCH}sizes/tabSideWithMessages.ts`, asShipped);
  const withDevtools = await measure(`${BENCH}sizes/tabSideWithDevtools.ts`, asShipped);
  const job = await measure(`${BENCH}sizes/authbrokerJob.tsx`, asShipped);
  // Exactly as `npm run build` makes them: the SharedWorker with its lazy chunks (the service methods,
  // the devtools recorder, the memory token store), the service worker in one file.
  const worker = await measureWorker(workerBundles.sharedWorker);
  const serviceWorker = await measureWorker(workerBundles.serviceWorker);
  const tabEntry = tab.find((c) => c.entry)!;
  const tabUpFront = upFront(tab);
  const sum = (chunks: Chunk[]) => chunks.reduce((a, c) => a + c.gzip, 0);
  const tabUpFrontGzip = sum(tabUpFront);
  const messagesGzip = sum(upFront(withMessages)) - tabUpFrontGzip;
  const devtoolsUpFrontGzip = sum(upFront(withDevtools)) - tabUpFrontGzip;
  const devtoolsLazyGzip = sum(withDevtools) - sum(tab) - devtoolsUpFrontGzip;
  const passkeys = tab.filter((c) =>
    c.inputs.some(([name]) => name === '@simplewebauthn/browser' || name === 'client/passkeys/passkeys.ts'),
  );
  const largest = (chunk: Chunk) =>
    chunk.inputs
      .slice(0, 8)
      .map(([name, bytes]) => `${name} ${fmt(bytes / 1000, 1)}`)
      .join(', ');
  const others: Array<{ name: string; pkg: string; file: string; how: string }> = [
    {
      name: '@stackframe/js (official SDK)',
      pkg: '@stackframe/js',
      file: 'stackframe.ts',
      how: 'signInWithCredential + getUser',
    },
    { name: '@supabase/auth-js', pkg: '@supabase/auth-js', file: 'supabase.ts', how: 'signInWithPassword + getUser' },
    {
      name: '@auth0/auth0-spa-js',
      pkg: '@auth0/auth0-spa-js',
      file: 'auth0.ts',
      how: 'createAuth0Client + loginWithRedirect/handleRedirectCallback + getUser',
    },
    {
      name: 'oidc-client-ts',
      pkg: 'oidc-client-ts',
      file: 'oidc.ts',
      how: 'UserManager signinRedirect/signinCallback + getUser',
    },
    {
      name: 'firebase/auth',
      pkg: 'firebase',
      file: 'firebase.ts',
      how: 'initializeApp + getAuth + signInWithEmailAndPassword + currentUser',
    },
  ];
  const workerEntry = worker.find((c) => c.entry)!;
  const workerUpFront = upFront(worker);
  const workerUpFrontGzip = sum(workerUpFront);
  const workerLazy = worker.filter((c) => !workerUpFront.includes(c));
  const serviceWorkerSize = serviceWorker[0]!;
  const jobUpFront = sum(upFront(job));
  const compared: Array<Array<string | number>> = [
    [
      `authbroker ${packageVersion('..')} (client + React hooks; React external)`,
      'createBrokerClient + AuthProvider/useUser + signInWithPassword',
      kB(jobUpFront),
      kB(jobUpFront + workerUpFrontGzip),
      kB(sum(job)),
      job.length - upFront(job).length,
    ],
  ];
  const otherData: Record<string, Chunk[] | string> = {};
  for (const other of others) {
    try {
      const chunks = await measure(`${BENCH}sizes/${other.file}`);
      otherData[other.name] = chunks;
      const first = sum(upFront(chunks));
      compared.push([
        `${other.name} ${packageVersion(other.pkg)}`,
        other.how,
        kB(first),
        kB(first),
        kB(sum(chunks)),
        chunks.length - upFront(chunks).length,
      ]);
    } catch (error) {
      otherData[other.name] = String(error);
      compared.push([other.name, other.how, 'failed to bundle', String(error).split('\n')[0]!, '', '']);
    }
  }
  const lazy = tab.filter((c) => !tabUpFront.includes(c));
  // What loads after the first render, and whether any of it shares a chunk with the entry (a shared
  // chunk would be imported by the entry, up front).
  const chunkOf = (chunks: Chunk[], input: string) => chunks.find((c) => c.inputs.some(([name]) => name === input));
  const sharesWithEntry = (chunks: Chunk[], chunk: Chunk | undefined) => {
    const front = new Set(upFront(chunks).map((c) => c.file));
    return chunk === undefined ? null : chunk.staticImports.filter((file) => front.has(file));
  };
  const connectionChunk = chunkOf(tab, 'client/connect/connection.ts');
  const inPageChunk = chunkOf(tab, 'the in-page broker bundle');
  const connectionShares = sharesWithEntry(tab, connectionChunk);
  const inPageShares = sharesWithEntry(tab, inPageChunk);
  const jobShares = [chunkOf(job, 'client/connect/connection.ts'), chunkOf(job, 'the in-page broker bundle')].map(
    (chunk) => sharesWithEntry(job, chunk),
  );
  return {
    id: 'bundle-size',
    title: '5. Bundle size (min+gzip, esbuild)',
    method: [
      `esbuild ${packageVersion('esbuild')}: bundle, minify, ESM, browser, es2022, code splitting, \`process.env.NODE_ENV = "production"\`, React and react-dom external; each output chunk gzipped at level 9 (kB = 1000 bytes).`,
      `Our tab side is every export of \`authbroker/client\` and \`authbroker/react\` (\`bench/sizes/tabSide.ts\`); the people-facing sentences are an opt-in entry, \`authbroker/messages\`, measured as what it adds to that bundle (\`bench/sizes/tabSideWithMessages.ts\`). \`authbroker/devtools\` likewise (\`bench/sizes/tabSideWithDevtools.ts\`): what it adds up front, and its panel, a lazy chunk fetched when first opened. "Up front" is the entry chunk plus the chunks it imports statically (what loads before the app runs); dynamic imports (the connection to the broker, loaded after the first render; passkeys with @simplewebauthn/browser; the service-worker fallback's workbox-window; the in-page fallback broker) become lazy chunks fetched only when used. The in-page broker is bundled first as \`npm run build\` ships it, a bundle of its own (\`dist/worker/hosts/inPage.js\`), and the tab's import of it resolved there. The worker scripts are built exactly as \`npm run build\` ships them (\`scripts/workerBundles.mjs\`): the SharedWorker broker (\`worker/hosts/sharedWorker.ts\`) with code splitting, its up-front files and, as lazy chunks (a module worker may \`import()\`), the service methods (fetched on the first call of one), the devtools recorder (on the first diagnostics query) and the memory token store (for \`tokenStore: 'memory'\`); the service-worker broker (\`worker/hosts/serviceWorkerEntry.ts\`) in one file (a service worker may not \`import()\` once installed, so they are all inside). The others are bundled from a small entry doing the same job (\`bench/sizes/*.ts\`: sign in, read the user).`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'Our bundles',
        columns: ['bundle', 'min', 'min+gzip', 'main inputs'],
        rows: [
          [
            'tab side: entry chunk (client + React hooks)',
            kB(tabEntry.bytes),
            kB(tabEntry.gzip),
            tabEntry.mainInputs.join(', '),
          ],
          ...tabUpFront
            .filter((c) => c !== tabEntry)
            .map((c) => [`  + statically imported chunk ${c.file}`, kB(c.bytes), kB(c.gzip), c.mainInputs.join(', ')]),
          [
            'tab side up front (entry + static imports)',
            kB(tabUpFront.reduce((a, c) => a + c.bytes, 0)),
            kB(tabUpFrontGzip),
            '',
          ],
          [
            '  + authbroker/messages (opt-in describeError sentences), added up front',
            '',
            `+${kB(messagesGzip)}`,
            'client/messages.ts',
          ],
          [
            '  + authbroker/devtools (opt-in), added up front / its panel, loaded when opened',
            '',
            `+${kB(devtoolsUpFrontGzip)} / +${kB(devtoolsLazyGzip)}`,
            'client/devtools/',
          ],
          ...lazy.map((c) => [`  lazy chunk ${c.file}`, kB(c.bytes), kB(c.gzip), c.mainInputs.join(', ')]),
          [
            'SharedWorker broker: entry',
            kB(workerEntry.bytes),
            kB(workerEntry.gzip),
            workerEntry.mainInputs.join(', '),
          ],
          ...workerUpFront
            .filter((c) => c !== workerEntry)
            .map((c) => [`  + statically imported chunk ${c.file}`, kB(c.bytes), kB(c.gzip), c.mainInputs.join(', ')]),
          [
            'SharedWorker broker up front (entry + static imports)',
            kB(workerUpFront.reduce((a, c) => a + c.bytes, 0)),
            kB(workerUpFrontGzip),
            '',
          ],
          ...workerLazy.map((c) => [
            `  lazy chunk ${c.file} (${lazyWorkerPart(c)})`,
            kB(c.bytes),
            kB(c.gzip),
            c.mainInputs.join(', '),
          ]),
          [
            'service-worker broker (one file, fallback; the service methods and the recorder inside)',
            kB(serviceWorkerSize.bytes),
            kB(serviceWorkerSize.gzip),
            serviceWorkerSize.mainInputs.join(', '),
          ],
        ],
      },
      {
        caption: 'Where the bytes are: largest inputs (minified kB before gzip)',
        columns: ['bundle', 'largest inputs'],
        rows: [
          ['tab side entry chunk', largest(tabEntry)],
          ['sign-in job entry chunk', largest(job.find((c) => c.entry)!)],
          ...(connectionChunk ? [['the connection (lazy)', largest(connectionChunk)]] : []),
          ['SharedWorker broker entry', largest(workerEntry)],
          ['service-worker broker', largest(serviceWorkerSize)],
        ],
      },
      {
        caption: 'Side by side for the same job (sign in, read the user), min+gzip',
        columns: [
          'client',
          'job',
          'page, up front',
          'up front + worker script',
          'all chunks (incl. lazy)',
          'lazy chunks',
        ],
        rows: compared,
      },
    ],
    // Issue 13, "Budgets, decided"; the job's and the service worker's as issue 25 decided them (recorded in issue 32).
    goals: [
      {
        goal: 'the job "sign in and show the user" (createBrokerClient + AuthProvider/useUser + signInWithPassword) ≤ 9 kB min+gzip up front',
        measured: `${kB(jobUpFront)} (${jobUpFront} B in ${upFront(job).length} file(s))`,
        met: jobUpFront <= 9000,
      },
      {
        goal: 'every export of authbroker/client + authbroker/react ≤ 10 kB min+gzip up front (entry + static imports)',
        measured: `${kB(tabUpFrontGzip)} (${tabUpFrontGzip} B in ${tabUpFront.length} file(s); entry chunk alone ${kB(tabEntry.gzip)}; with the opt-in authbroker/messages ${kB(tabUpFrontGzip + messagesGzip)})`,
        met: tabUpFrontGzip <= 10_000,
      },
      // Issue 25: each worker bundle.
      {
        goal: 'SharedWorker broker ≤ 35 kB min+gzip up front (entry + static imports; its lazy chunks apart)',
        measured: `${kB(workerUpFrontGzip)} (${workerUpFrontGzip} B in ${workerUpFront.length} file(s); lazy ${workerLazy.map((c) => kB(c.gzip)).join(', ') || 'none'})`,
        met: workerUpFrontGzip <= 35_000,
      },
      {
        goal: 'service-worker broker ≤ 47 kB min+gzip (one file, with the recorder and oauth4webapi)',
        measured: `${kB(serviceWorkerSize.gzip)} (${serviceWorkerSize.gzip} B)`,
        met: serviceWorkerSize.gzip <= 47_000,
      },
      // Issue 25, decision 1: the connection after the first render, the in-page broker a bundle of its own.
      {
        goal: "the connection (Comlink, the host choice, starting the worker) and the in-page broker load after the first render, each sharing no chunk with the tab's entry (both bundles)",
        measured: `connection ${connectionChunk ? `${connectionChunk.file} ${kB(connectionChunk.gzip)}` : 'not found'}, in-page broker ${inPageChunk ? `${inPageChunk.file} ${kB(inPageChunk.gzip)}` : 'not found'}; chunks of the entry they import: ${[connectionShares, inPageShares, ...jobShares].flat().join(', ') || 'none'}`,
        met: [connectionShares, inPageShares, ...jobShares].every((shared) => shared !== null && shared.length === 0),
      },
    ],
    notes: [
      passkeys.length
        ? `The lazy passkey module: ${passkeys.map((c) => `${c.file} ${kB(c.gzip)} min+gzip (${c.mainInputs.join(', ')})`).join('; ')}; fetched only by registerPasskey/signInWithPasskey.`
        : 'No lazy chunk with @simplewebauthn/browser was found: the passkey module is not split out.',
      'With authbroker the broker script (the worker) is downloaded once per origin on the SharedWorker path, hence the "+ worker" column; the others run everything in the page.',
      'auth0-spa-js and oidc-client-ts have no password sign-in in the browser; their job uses the redirect flow they offer.',
    ],
    data: { tab, withMessages, withDevtools, job, worker, serviceWorker, others: otherData },
  };
}
