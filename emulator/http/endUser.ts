import { isIP } from 'node:net';

type Headers = Readonly<Record<string, string | undefined>>;

/**
 * The country a sign-up came from, as the service reads it with no trusted proxy configured (its default): only for a
 * request that says it comes from a browser and names the end user's IP address, from the proxy's country header
 * (`x-vercel-ip-country`, else `cf-ipcountry`), trimmed and upper-cased. Null when any of that is missing.
 */
export function signUpCountryOf(headers: Headers): string | null {
  const userAgent = headers['user-agent'] ?? '';
  if (!['Mozilla', 'Chrome', 'Safari'].some((browser) => userAgent.includes(browser))) return null;
  const ip =
    headers['x-real-ip'] ??
    headers['x-forwarded-for']?.split(',')[0]?.trim() ??
    headers['x-vercel-forwarded-for'] ??
    headers['cf-connecting-ip'];
  if (ip === undefined || isIP(ip) === 0) return null;
  const country = (headers['x-vercel-ip-country'] || headers['cf-ipcountry'] || '').trim().toUpperCase();
  return /^[A-Z]{2}$/.test(country) ? country : null;
}
