interface Point {
  date: string;
  activity: number;
}

const W = 640;
const H = 200;
const PAD = { top: 12, right: 12, bottom: 28, left: 36 };

function niceMax(value: number): number {
  if (value <= 4) return 4;
  // Small counts: an even maximum keeps the middle tick a whole number.
  if (value <= 20) return Math.ceil(value / 2) * 2;
  const step = 10 ** Math.floor(Math.log10(value));
  return Math.ceil(value / step) * step;
}

const shortDate = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** Daily values as an SVG: bars for one series, a line for the other. Colours come from CSS. */
export function DailyChart({
  bars,
  line,
  barLabel,
  lineLabel,
  testid,
}: {
  bars: Point[];
  line: Point[];
  barLabel: string;
  lineLabel: string;
  testid?: string;
}) {
  const n = Math.max(bars.length, line.length, 1);
  const max = niceMax(Math.max(1, ...bars.map((p) => p.activity), ...line.map((p) => p.activity)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (innerW * (i + 0.5)) / n;
  const y = (v: number) => PAD.top + innerH - (innerH * v) / max;
  const barW = Math.max(2, (innerW / n) * 0.6);
  const ticks = [0, max / 2, max];
  const path = line.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(p.activity).toFixed(1)}`).join(' ');
  const labelEvery = Math.ceil(n / 6);
  const dates = (bars.length >= line.length ? bars : line).map((p) => p.date);
  return (
    <figure className="chart" data-testid={testid}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${barLabel} and ${lineLabel} per day`}>
        {ticks.map((t) => (
          <g key={t}>
            <line className="chart-grid" x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
            <text className="chart-axis" x={PAD.left - 6} y={y(t) + 4} textAnchor="end">
              {Number.isInteger(t) ? t : t.toFixed(1)}
            </text>
          </g>
        ))}
        {bars.map((p, i) => (
          <rect
            key={p.date}
            className="chart-bar"
            x={x(i) - barW / 2}
            y={y(p.activity)}
            width={barW}
            height={Math.max(0, PAD.top + innerH - y(p.activity))}
            rx={2}
          >
            <title>{`${shortDate(p.date)}: ${p.activity} ${barLabel.toLowerCase()}`}</title>
          </rect>
        ))}
        {line.length > 0 && <path className="chart-line" d={path} fill="none" />}
        {line.map((p, i) => (
          <circle key={p.date} className="chart-dot" cx={x(i)} cy={y(p.activity)} r={2.5}>
            <title>{`${shortDate(p.date)}: ${p.activity} ${lineLabel.toLowerCase()}`}</title>
          </circle>
        ))}
        {dates.map((d, i) =>
          i % labelEvery === 0 || i === dates.length - 1 ? (
            <text key={d} className="chart-axis" x={x(i)} y={H - 8} textAnchor="middle">
              {shortDate(d)}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption className="chart-legend">
        <span className="legend-bar" /> {barLabel}
        <span className="legend-line" /> {lineLabel}
      </figcaption>
    </figure>
  );
}
