import type { Exchange } from './exchange.js';

export type DifferenceKind =
  | 'status'
  | 'known-error'
  | 'header'
  | 'key-only-in-emulator'
  | 'key-only-in-real'
  | 'body-kind'
  | 'exchange-only-in-emulator'
  | 'exchange-only-in-real';

/** One atomic difference between the emulator's and the real backend's answer to the same step. */
export interface Difference {
  flow: string;
  label: string;
  method: string;
  route: string;
  kind: DifferenceKind;
  /** The header name or key path it is about (empty for status, known error and whole exchanges). */
  subject: string;
  emulator: string;
  real: string;
}

/** Why a difference stays: it matches the rule, and the reason says why (README section in `readme`). */
export interface Explanation {
  flow?: RegExp;
  label?: RegExp;
  route?: RegExp;
  kind?: DifferenceKind | DifferenceKind[];
  subject?: RegExp;
  /** A further condition on the two values (e.g. "they differ only by the x-hexclave-* names"). */
  when?: (d: Difference) => boolean;
  reason: string;
}

const show = (v: string | null | undefined) => (v === null || v === undefined ? '—' : v);

/** Pairs the two sides' exchanges by label and lists every difference. */
export function compareExchanges(flow: string, emulator: readonly Exchange[], real: readonly Exchange[]): Difference[] {
  const out: Difference[] = [];
  const realByLabel = new Map(real.map((e) => [e.label, e]));
  const emulatorLabels = new Set(emulator.map((e) => e.label));
  for (const e of emulator) {
    const r = realByLabel.get(e.label);
    const base = { flow, label: e.label, method: e.method, route: e.route };
    if (!r) {
      out.push({ ...base, kind: 'exchange-only-in-emulator', subject: '', emulator: `${e.status}`, real: '—' });
      continue;
    }
    if (e.status !== r.status)
      out.push({ ...base, kind: 'status', subject: '', emulator: `${e.status}`, real: `${r.status}` });
    if (e.knownError !== r.knownError)
      out.push({ ...base, kind: 'known-error', subject: '', emulator: show(e.knownError), real: show(r.knownError) });
    for (const name of new Set([...Object.keys(e.headers), ...Object.keys(r.headers)])) {
      if (e.headers[name] !== r.headers[name])
        out.push({
          ...base,
          kind: 'header',
          subject: name,
          emulator: show(e.headers[name]),
          real: show(r.headers[name]),
        });
    }
    // Error bodies' keys follow from the code (compared above); a body's keys are compared on answers of the same code.
    if (e.knownError === r.knownError) {
      if (e.bodyKind !== r.bodyKind)
        out.push({ ...base, kind: 'body-kind', subject: '', emulator: e.bodyKind, real: r.bodyKind });
      const eKeys = new Set(e.bodyKeys ?? []);
      const rKeys = new Set(r.bodyKeys ?? []);
      for (const key of eKeys)
        if (!rKeys.has(key))
          out.push({ ...base, kind: 'key-only-in-emulator', subject: key, emulator: 'present', real: 'absent' });
      for (const key of rKeys)
        if (!eKeys.has(key))
          out.push({ ...base, kind: 'key-only-in-real', subject: key, emulator: 'absent', real: 'present' });
    }
  }
  for (const r of real) {
    if (!emulatorLabels.has(r.label))
      out.push({
        flow,
        label: r.label,
        method: r.method,
        route: r.route,
        kind: 'exchange-only-in-real',
        subject: '',
        emulator: '—',
        real: `${r.status}`,
      });
  }
  return out;
}

export function explanationOf(d: Difference, explanations: readonly Explanation[]): Explanation | undefined {
  return explanations.find((x) => {
    if (x.flow && !x.flow.test(d.flow)) return false;
    if (x.label && !x.label.test(d.label)) return false;
    if (x.route && !x.route.test(`${d.method} ${d.route}`)) return false;
    if (x.kind && !(Array.isArray(x.kind) ? x.kind : [x.kind]).includes(d.kind)) return false;
    if (x.subject && !x.subject.test(d.subject)) return false;
    if (x.when && !x.when(d)) return false;
    return true;
  });
}
