import type { ProbeResult } from '../../../protocol/errors/errors.js';

/** One network probe as a line: where, and whether it answered. */
export function ProbeLine({ label, probe }: { label: string; probe: ProbeResult }) {
  return (
    <li>
      {label} <code>{probe.url}</code>:{' '}
      {probe.reachable ? (
        <span className="good">
          answered {probe.status} in {Math.round(probe.elapsedMillis)} ms
        </span>
      ) : (
        <span className="bad">no answer ({probe.error ?? 'unknown reason'})</span>
      )}
    </li>
  );
}
