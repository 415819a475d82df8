import { initials } from '../lib/format.js';

/** A round picture, or the person's initials on a colour derived from their name. */
export function Avatar({
  src,
  name,
  email,
  size = 40,
  testid,
}: {
  src: string | null | undefined;
  name?: string | null;
  email?: string | null;
  size?: 24 | 32 | 40 | 64 | 96;
  testid?: string;
}) {
  const label = name ?? email ?? 'User';
  if (src)
    return <img className={`avatar avatar-${size}`} src={src} alt={`Picture of ${label}`} data-testid={testid} />;
  const seed = [...(email ?? name ?? '?')].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  return (
    <span className={`avatar avatar-${size} avatar-hue-${seed % 6}`} role="img" aria-label={label} data-testid={testid}>
      {initials(name, email)}
    </span>
  );
}
