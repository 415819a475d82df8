import { crc32 } from 'node:zlib';
import { randomToken, sha256Hex } from '../crypto.js';
import type { OwnedApiKeyRecord, ProjectRecord } from './model.js';
import { ownedApiKeys } from './projectFeatures.js';

/**
 * Users' and teams' API keys in the service's format, so that tools which recognise Stack Auth keys (secret scanners,
 * the service's own test suite) recognise the emulator's: `pk_`/`sk_`, 45 random characters, the key id without
 * dashes, `user`/`team`, one character for public/self-hosted, the marker `574ck4u7h`, and a CRC-32 of all that in hex.
 */
const MARKER = '574ck4u7h';
/** Crockford base32, upper case, as the service writes the flag character. */
const FLAG_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newOwnedApiKeySecret(id: string, type: 'user' | 'team', isPublic: boolean): string {
  // The flag: +1 for a key not made by the cloud service (the emulator never is), +2 for a public key.
  const flag = FLAG_ALPHABET[1 + (isPublic ? 2 : 0)]!.toLowerCase();
  const body = `${isPublic ? 'pk' : 'sk'}_${randomToken()}${id.replace(/-/g, '')}${type}${flag}${MARKER}`;
  return `${body}${crc32(body).toString(16).padStart(8, '0')}`;
}

export type ApiKeyOwner = OwnedApiKeyRecord['owner'];

/** Makes and stores a key; returns the record and the whole secret, which is not kept. */
export function createOwnedApiKey(
  p: ProjectRecord,
  input: { owner: ApiKeyOwner; description: string; expires_at_millis: number | null; is_public: boolean },
  now: number,
): { record: OwnedApiKeyRecord; secret: string } {
  const id = crypto.randomUUID();
  const secret = newOwnedApiKeySecret(id, input.owner.type, input.is_public);
  const record: OwnedApiKeyRecord = {
    id,
    owner: input.owner,
    description: input.description,
    is_public: input.is_public,
    created_at_millis: now,
    expires_at_millis: input.expires_at_millis,
    manually_revoked_at_millis: null,
    secret_hash: sha256Hex(secret),
    last_four: secret.slice(-4),
  };
  ownedApiKeys(p).push(record);
  return { record, secret };
}

/** The key whose whole secret this is. */
export function findOwnedApiKeyBySecret(p: ProjectRecord, secret: string): OwnedApiKeyRecord | undefined {
  const hash = sha256Hex(secret);
  return ownedApiKeys(p).find((k) => k.secret_hash === hash);
}

export function findOwnedApiKey(p: ProjectRecord, id: string): OwnedApiKeyRecord | undefined {
  return ownedApiKeys(p).find((k) => k.id === id);
}

/** An owner's keys, newest first (keys made in one millisecond: the later first). */
export function ownedApiKeysOf(p: ProjectRecord, owner: ApiKeyOwner): OwnedApiKeyRecord[] {
  return ownedApiKeys(p)
    .map((key, index) => ({ key, index }))
    .filter(({ key }) =>
      owner.type === 'user'
        ? key.owner.type === 'user' && key.owner.user_id === owner.user_id
        : key.owner.type === 'team' && key.owner.team_id === owner.team_id,
    )
    .sort((a, b) => b.key.created_at_millis - a.key.created_at_millis || b.index - a.index)
    .map(({ key }) => key);
}
