const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export const formatDateTime = (millis: number) => dateTime.format(new Date(millis));
export const formatDate = (millis: number) => dateOnly.format(new Date(millis));

/** "3 minutes ago", "in 6 days". */
export function formatRelative(millis: number, now = Date.now()): string {
  const seconds = Math.round((millis - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return relative.format(0, 'second');
  if (abs < 45 * 60) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 22 * 3600) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86400), 'day');
}

/** For things that already happened: a clock a little ahead (the server's) never reads "in 2 minutes". */
export const formatAgo = (millis: number, now = Date.now()) => formatRelative(Math.min(millis, now), now);

export const providerNames: Record<string, string> = {
  github: 'GitHub',
  google: 'Google',
  microsoft: 'Microsoft',
  spotify: 'Spotify',
  facebook: 'Facebook',
  discord: 'Discord',
  gitlab: 'GitLab',
  bitbucket: 'Bitbucket',
  linkedin: 'LinkedIn',
  apple: 'Apple',
  x: 'X',
};

export const providerName = (id: string) => providerNames[id] ?? id.charAt(0).toUpperCase() + id.slice(1);

/** The initials of a name or e-mail, for avatars without a picture. */
export function initials(name: string | null | undefined, email?: string | null): string {
  const source = (name ?? '').trim() || (email ?? '').split('@')[0] || '?';
  const parts = source.split(/[\s._-]+/).filter(Boolean);
  const letters = parts.length >= 2 ? parts[0]!.charAt(0) + parts[1]!.charAt(0) : source.slice(0, 2);
  return letters.toUpperCase();
}
