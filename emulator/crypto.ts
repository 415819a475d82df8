import { compare as bcryptCompare } from 'bcryptjs';
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual, type BinaryLike } from 'node:crypto';

/** Lowercase Crockford base32, the alphabet of refresh tokens, codes and key bodies (PROTOCOL.md §3.2). */
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** 45 characters of Crockford base32: 225 bits drawn, as the service's 224-bit tokens. */
export function randomToken(length = 45): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += CROCKFORD[bytes[i]! & 31];
  return out;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two secrets without leaking, through timing, how much of them matched. */
export function constantTimeEqual(a: string, b: string): boolean {
  // Hashing first gives equal lengths, which timingSafeEqual needs, and hides the real length.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 } as const;

function scrypt(password: BinaryLike, salt: BinaryLike): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, all parameters stored so they can change without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash for users without a password, so that sign-in always spends the same time. */
let dummyHash: Promise<string> | undefined;

/** Imported hashes (`password_hash` of a server write): bcrypt in Modular Crypt Format. */
const BCRYPT_PREFIX = /^\$2[aby]\$/;

/**
 * Checks a password against the emulator's own scrypt hashes and against imported bcrypt hashes,
 * which is how teams bring users over from another system.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (stored !== null && BCRYPT_PREFIX.test(stored)) return bcryptCompare(password, stored);
  const hash = stored ?? (await (dummyHash ??= hashPassword(randomToken())));
  const [scheme, n, r, p, salt, expected] = hash.split('$');
  if (scheme !== 'scrypt' || salt === undefined || expected === undefined) return false;
  const key = await new Promise<Buffer>((resolve, reject) =>
    scryptCallback(
      password,
      Buffer.from(salt, 'base64url'),
      SCRYPT.keyLength,
      { N: Number(n), r: Number(r), p: Number(p) },
      (error, derived) => (error ? reject(error) : resolve(derived)),
    ),
  );
  const ok = timingSafeEqual(key, Buffer.from(expected, 'base64url'));
  return stored !== null && ok;
}

export function randomUuid(): string {
  return crypto.randomUUID();
}
