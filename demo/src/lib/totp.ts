/**
 * TOTP enrolment done in the app, as the service expects (PROTOCOL.md §6.7): a random 20-byte
 * secret, given to `updateUser({ totpSecret })` as bytes; the `otpauth://` URI (base32 secret) is
 * built here for the authenticator app. Codes are checked locally before enabling, so a person
 * cannot lock themselves out with a secret their app never saved.
 */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function randomSecret(bytes = 20): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(bytes));
}

/** RFC 4648 base32 without padding (what authenticator apps read). */
export function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** `otpauth://totp/Issuer:account?secret=…&issuer=…` (SHA-1, 6 digits, 30 s: what every app supports). */
export function otpauthUri(secret: Uint8Array, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret: base32(secret), issuer, algorithm: 'SHA1', digits: '6', period: '30' });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/** The secret in groups of four, easier to type by hand. */
export const groupSecret = (text: string) => text.replace(/(.{4})/g, '$1 ').trim();

async function hotp(secret: Uint8Array<ArrayBuffer>, counter: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  const message = new ArrayBuffer(8);
  const view = new DataView(message);
  view.setUint32(0, Math.floor(counter / 2 ** 32));
  view.setUint32(4, counter >>> 0);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
  const offset = mac[mac.length - 1]! & 0xf;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 1_000_000).padStart(6, '0');
}

/** Whether a typed code matches the secret now (one 30-second step of drift either way). */
export async function verifyTotp(secret: Uint8Array<ArrayBuffer>, code: string, now = Date.now()): Promise<boolean> {
  const typed = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(typed)) return false;
  const step = Math.floor(now / 30_000);
  for (const delta of [0, -1, 1]) if ((await hotp(secret, step + delta)) === typed) return true;
  return false;
}
