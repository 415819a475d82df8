import fc from 'fast-check';
import { request } from 'node:http';

/** Strings that break naive code: lone surrogates, bidi and zero-width marks, emoji sequences, NUL, markup. */
export const NASTY_PIECES = [
  '\uD800',
  '\uDFFF',
  '\uDBFF\uD800',
  '\u202E',
  '\u200F',
  '\u200B',
  '\u2060',
  '\uFEFF',
  '\u0000',
  '\u0007',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'e\u0301',
  '𝕏',
  'ﷺ',
  'İ',
  'ß',
  'Ω≈ç√',
  '\n',
  '\r\n',
  '\t',
  '"',
  '\\',
  "'",
  '<script>',
  '%00',
  '%ZZ',
  '../',
  '${x}',
  '{{x}}',
  '__proto__',
  'constructor',
  'a',
  '@',
  '.',
  'x@example.com',
  'http://localhost:5173/cb',
  '0',
  '-1',
  'null',
  'true',
];
/** Keys aimed at prototype pollution and property shadowing. */
export const DANGEROUS_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

export const nastyString = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.array(fc.constantFrom(...NASTY_PIECES), { maxLength: 12 }).map((parts) => parts.join('')),
  },
  { weight: 20, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  // Huge: past every field limit, and past Node's 16 KB for a request line when it lands in a query.
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...NASTY_PIECES), fc.integer({ min: 2000, max: 20_000 }))
      .map(([piece, n]) => piece.repeat(n)),
  },
);

/** A JSON document as a tree, so that `__proto__` and duplicate keys survive into the text. */
export type JNode = { o: Array<[string, JNode]> } | { a: JNode[] } | { v: string | number | boolean | null };

export function toTree(value: unknown): JNode {
  if (Array.isArray(value)) return { a: value.map(toTree) };
  if (typeof value === 'object' && value !== null) return { o: Object.entries(value).map(([k, v]) => [k, toTree(v)]) };
  return { v: value as string | number | boolean | null };
}

export function jsonText(node: JNode): string {
  if ('o' in node) return `{${node.o.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if ('a' in node) return `[${node.a.map(jsonText).join(',')}]`;
  return JSON.stringify(node.v) ?? 'null';
}

const primitive = fc
  .oneof(
    nastyString,
    fc.integer(),
    fc.double(),
    fc.constantFrom(true, false, null, 0, -0, 1e308, Number.MAX_SAFE_INTEGER + 2, ''),
  )
  .map((v): JNode => ({ v: typeof v === 'number' && !Number.isFinite(v) ? 0 : v }));
const key = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...DANGEROUS_KEYS) },
  { weight: 3, arbitrary: nastyString.filter((s) => s.length < 200) },
);

/** Any JSON value, with dangerous keys and nasty strings at every depth. */
export const junkTree: fc.Arbitrary<JNode> = fc.letrec<{ node: JNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    primitive,
    fc.array(tie('node'), { maxLength: 4 }).map((a): JNode => ({ a })),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }).map((o): JNode => ({ o })),
  ),
})).node;

/** A pollution attempt: `{"__proto__":{"polluted":…}}` or `{"constructor":{"prototype":{"polluted":…}}}`. */
export const pollution: fc.Arbitrary<JNode> = fc.constantFrom<JNode>(
  {
    o: [
      [
        '__proto__',
        {
          o: [
            ['polluted', { v: 'yes' }],
            ['isAdmin', { v: true }],
          ],
        },
      ],
    ],
  },
  { o: [['constructor', { o: [['prototype', { o: [['polluted', { v: 'yes' }]] }]] }]] },
  { o: [['prototype', { o: [['polluted', { v: 'yes' }]] }]] },
);

export interface Mutation {
  at: number;
  op: 'replace' | 'delete' | 'extra' | 'duplicate' | 'pollute' | 'wrap';
  key: string;
  junk: JNode;
  polluter: JNode;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom<Mutation['op']>('replace', 'delete', 'extra', 'duplicate', 'pollute', 'wrap'),
  key,
  junk: junkTree,
  polluter: pollution,
});

/** Every object node of a tree, outermost first. */
function objects(node: JNode, out: Array<{ o: Array<[string, JNode]> }> = []): Array<{ o: Array<[string, JNode]> }> {
  if ('o' in node) {
    out.push(node);
    for (const [, child] of node.o) objects(child, out);
  } else if ('a' in node) for (const child of node.a) objects(child, out);
  return out;
}

/** Applies mutations to a copy of a valid body: wrong types, missing and extra fields, duplicates, pollution. */
export function mutate(base: JNode, mutations: Mutation[]): JNode {
  let root = structuredClone(base);
  for (const given of mutations) {
    // Copies: the junk and the polluters are shared with other runs and must never be edited.
    const m = { ...given, junk: structuredClone(given.junk), polluter: structuredClone(given.polluter) };
    const targets = objects(root);
    const target = targets[m.at % Math.max(1, targets.length)];
    if (m.op === 'wrap') root = m.at % 2 === 0 ? { a: [root] } : m.junk;
    if (!target) continue;
    const entry = target.o.length === 0 ? undefined : target.o[m.at % target.o.length];
    if (m.op === 'replace' && entry) entry[1] = m.junk;
    if (m.op === 'delete' && entry) target.o.splice(target.o.indexOf(entry), 1);
    if (m.op === 'extra') target.o.push([m.key, m.junk]);
    if (m.op === 'duplicate' && entry) target.o.push([entry[0], m.junk]);
    if (m.op === 'pollute') target.o.push(...(m.polluter as { o: Array<[string, JNode]> }).o);
  }
  return root;
}

/** What goes on the wire as the body. */
export type BodyPlan =
  | { kind: 'json'; mutations: Mutation[] }
  | { kind: 'malformed'; mutations: Mutation[]; cut: number; garbage: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'form'; pairs: Array<[string, string]> }
  | { kind: 'oversized'; size: number }
  | { kind: 'none' };

export const bodyPlan: fc.Arbitrary<BodyPlan> = fc.oneof(
  {
    weight: 24,
    arbitrary: fc
      .array(mutation, { minLength: 1, maxLength: 3 })
      .map((mutations): BodyPlan => ({ kind: 'json', mutations })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({
        mutations: fc.array(mutation, { maxLength: 2 }),
        cut: fc.nat(),
        garbage: fc.constantFrom('', '}', ',', '{', '"', '\\u12', 'NaN', '/*', '\u0000'),
      })
      .map((r): BodyPlan => ({ kind: 'malformed', ...r })),
  },
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes): BodyPlan => ({ kind: 'bytes', bytes })) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(key, nastyString), { maxLength: 5 })
      .map((pairs): BodyPlan => ({ kind: 'form', pairs })),
  },
  { weight: 2, arbitrary: fc.constant<BodyPlan>({ kind: 'none' }) },
  // Rare (about 1 run in 40): a little over the 1 MB limit.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_048_577, max: 1_100_000 }).map((size): BodyPlan => ({ kind: 'oversized', size })),
  },
);

/** Percent-encodes text as UTF-8 (lone surrogates become U+FFFD, as a browser would send them). */
export function percent(text: string): string {
  return encodeURIComponent((text as string & { toWellFormed(): string }).toWellFormed());
}

export function bodyBytes(plan: BodyPlan, base: JNode): Buffer | null {
  switch (plan.kind) {
    case 'json':
      return Buffer.from(jsonText(mutate(base, plan.mutations)));
    case 'malformed': {
      const text = jsonText(mutate(base, plan.mutations));
      const cut = plan.cut % Math.max(1, text.length);
      return Buffer.from(text.slice(0, cut) + plan.garbage + text.slice(cut + 1));
    }
    case 'bytes':
      return Buffer.from(plan.bytes);
    case 'form':
      return Buffer.from(plan.pairs.map(([k, v]) => `${percent(k)}=${percent(v)}`).join('&'));
    case 'oversized':
      return Buffer.from(`{"display_name":"${'a'.repeat(plan.size)}"}`);
    case 'none':
      return null;
  }
}

export const contentType = fc.constantFrom<string | null>(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/ld+json',
  '',
  ';',
  'json',
  null,
);

/** Header changes: drop one, send one twice with another value, or garble its value. */
export interface HeaderPlan {
  op: 'keep' | 'drop' | 'duplicate' | 'garble';
  at: number;
  value: string;
}
export const headerPlan: fc.Arbitrary<HeaderPlan[]> = fc.array(
  fc.record({
    op: fc.constantFrom<HeaderPlan['op']>('keep', 'drop', 'duplicate', 'garble'),
    at: fc.nat(),
    value: fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
      fc.constantFrom('client', 'server', 'admin', 'CLIENT', '', 'null', 'internal'),
    ),
  }),
  { maxLength: 2 },
);

export function applyHeaders(base: Array<[string, string]>, plans: HeaderPlan[]): Array<[string, string]> {
  let headers = [...base];
  for (const plan of plans) {
    if (headers.length === 0 || plan.op === 'keep') continue;
    const i = plan.at % headers.length;
    const [name] = headers[i]!;
    // Header values must be printable ASCII to be sent at all.
    const value = plan.value.replace(/[^\x20-\x7e]/g, '?');
    if (plan.op === 'drop') headers = headers.filter((_, j) => j !== i);
    if (plan.op === 'duplicate') headers.push([name, value]);
    if (plan.op === 'garble') headers[i] = [name, value];
  }
  return headers;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over loopback with exactly these header lines (duplicates included). */
export function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Array<[string, string]>,
  body: Buffer | null,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const raw = [
    ['host', url.host],
    ...headers,
    ...(body === null ? [] : [['content-length', String(body.length)]]),
  ].flat();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({ host: url.hostname, port: url.port, method, path, headers: raw }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    // The service may answer (413) and close before an oversized body is fully sent.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(body ?? undefined);
  });
}
