/** Short, stable renderings of times for the devtools (English, like the rest of the library's text). */

/** `1.2 s`, `340 ms`, `2 min`. */
export function duration(millis: number): string {
  if (millis < 1000) return `${Math.round(millis)} ms`;
  if (millis < 60_000) return `${(millis / 1000).toFixed(1)} s`;
  if (millis < 3_600_000) return `${Math.floor(millis / 60_000)} min`;
  return `${(millis / 3_600_000).toFixed(1)} h`;
}

/** How long ago, from `now`: `just now`, `12 s ago`, `3 min ago`. */
export function ago(atMillis: number, now: number): string {
  const elapsed = now - atMillis;
  return elapsed < 1000 ? 'just now' : `${duration(elapsed)} ago`;
}

/** A countdown to `atMillis`: `9:41`, `1:02:03`, or `expired`. */
export function countdown(atMillis: number, now: number): string {
  const left = Math.floor((atMillis - now) / 1000);
  if (left <= 0) return 'expired';
  const hours = Math.floor(left / 3600);
  const minutes = Math.floor((left % 3600) / 60);
  const seconds = String(left % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** The wall-clock time of day, to the second. */
export function timeOfDay(atMillis: number): string {
  return new Date(atMillis).toLocaleTimeString(undefined, { hour12: false });
}

/** A query as people read it: `team teamId=3f2a…`. */
export function describeQuery(query: { kind: string } & Record<string, unknown>): string {
  const params = Object.entries(query)
    .filter(([name, value]) => name !== 'kind' && value !== undefined)
    .map(
      ([name, value]) =>
        `${name}=${typeof value === 'string' && value.length > 12 ? `${value.slice(0, 8)}…` : String(value)}`,
    );
  return [query.kind, ...params].join(' ');
}

/** An error as the diagnostics carry it: `EMAIL_PASSWORD_MISMATCH (400)`. */
export function errorText(error: { code: string; status: number | null }): string {
  return error.status === null ? error.code : `${error.code} (${error.status})`;
}
