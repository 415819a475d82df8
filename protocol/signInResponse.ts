import { ProtocolError } from './errors/errors.js';

/** What every sign-in answer carries (password, OTP, MFA, passkey, sign-up). */
export interface SignInTokens {
  access_token: string;
  refresh_token: string;
  user_id?: string;
  is_new_user?: boolean;
}

const ERROR_CODE = /^[A-Z][A-Z0-9_]{2,80}$/;

function problemWith(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return `its body is ${body === null ? 'null' : Array.isArray(body) ? 'a list' : typeof body}, not an object`;
  const fields = body as Record<string, unknown>;
  for (const name of ['access_token', 'refresh_token'] as const) {
    const value = fields[name];
    if (typeof value !== 'string' || value.trim() === '' || value === 'undefined' || value === 'null') {
      // An error body on a success status (a proxy rewrote the status) says so by its code.
      const code =
        typeof fields.code === 'string' && ERROR_CODE.test(fields.code)
          ? ` (the body looks like the error ${fields.code})`
          : '';
      return `${name} is ${value === undefined ? 'missing' : typeof value === 'string' ? 'not a usable token' : `a ${typeof value}`}${code}`;
    }
  }
  if (fields.user_id !== undefined && typeof fields.user_id !== 'string')
    return `user_id is a ${typeof fields.user_id}`;
  if (fields.is_new_user !== undefined && typeof fields.is_new_user !== 'boolean')
    return `is_new_user is a ${typeof fields.is_new_user}`;
  return null;
}

/**
 * Checks a sign-in answer before anyone is signed in with it: a 200 whose body is empty, an error
 * body, or tokens that are not strings is a ProtocolError, and the session is left as it was. The
 * message names the field, never a value (the body may hold tokens).
 */
export function readSignInTokens(body: unknown, what = 'The sign-in'): SignInTokens {
  const problem = problemWith(body);
  if (problem !== null) throw new ProtocolError(`${what} returned no usable tokens (${problem}): nobody signed in.`);
  const fields = body as Record<string, unknown>;
  return {
    access_token: fields.access_token as string,
    refresh_token: fields.refresh_token as string,
    ...(fields.user_id === undefined ? {} : { user_id: fields.user_id as string }),
    ...(fields.is_new_user === undefined ? {} : { is_new_user: fields.is_new_user as boolean }),
  };
}
