/**
 * `authbroker/messages`: `describeError`, a sentence a person understands for any error authbroker
 * throws. An entry of its own, so that apps with their own wording or languages do not ship ours.
 *
 * @module authbroker/messages
 */
import { AuthBrokerError, type SerializedError } from '../protocol/errors/errors.js';

/**
 * `authbroker/messages`, an entry of its own so that apps with their own wording (or their own
 * languages) do not ship ours; like Firebase's opt-in `debugErrorMap`.
 *
 * Sentences for people, per error code: what happened and what to do. Anything without an entry
 * falls back to the error's own message, never to raw JSON.
 */
const sentences: Record<string, string> = {
  EMAIL_PASSWORD_MISMATCH: 'That e-mail and password do not match. Check them and try again.',
  USER_EMAIL_ALREADY_EXISTS: 'An account with this e-mail already exists. Sign in instead, or use another e-mail.',
  CURRENT_PROJECT_NOT_FOUND:
    'The app is set up with a project ID the service does not know: check the project ID in its configuration.',
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT:
    'The app is set up without the publishable client key this project requires: add it to its configuration.',
  ANONYMOUS_AUTHENTICATION_NOT_ALLOWED:
    'This page does not accept guest accounts. Sign in or create an account to go on.',
  RESTRICTED_USER_NOT_ALLOWED: 'Your account cannot do this yet (for example, its e-mail is not verified).',
  ANONYMOUS_ACCOUNTS_NOT_ENABLED: 'Guest accounts are not available for this app.',
  SIGN_UP_REJECTED: 'This sign-up was refused. Contact the app if you think this is a mistake.',
  PASSWORD_TOO_SHORT: 'The password is too short: use at least 8 characters.',
  PASSWORD_TOO_LONG: 'The password is too long: use at most 70 characters.',
  // The service sends it for a wrong current password; our own check, for a repeated password that differs.
  PASSWORD_CONFIRMATION_MISMATCH:
    'That password does not match: check the current password, and that the new one is typed the same twice.',
  SIGN_UP_NOT_ENABLED: 'New accounts cannot be created here at the moment.',
  PASSWORD_AUTHENTICATION_NOT_ENABLED: 'Signing in with a password is turned off for this app.',
  PASSKEY_AUTHENTICATION_NOT_ENABLED: 'Passkeys are turned off for this app.',
  PASSKEY_AUTHENTICATION_FAILED: 'That passkey could not be used. Try again, or sign in another way.',
  PASSKEY_REGISTRATION_FAILED: 'The passkey could not be registered. Please try again.',
  PASSKEY_WEBAUTHN_ERROR: 'The passkey prompt was cancelled or is not available on this device.',
  PASSKEYS_UNAVAILABLE: 'Passkeys are not available in this browser. Please sign in another way.',
  OAUTH_CANCELLED: 'The sign-in window was closed before signing in finished. Please try again.',
  VERIFICATION_CODE_NOT_FOUND: 'This code or link is not valid. Ask for a new one.',
  VERIFICATION_CODE_EXPIRED: 'This code or link has expired. Ask for a new one.',
  VERIFICATION_CODE_ALREADY_USED: 'This code or link has already been used.',
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: 'Too many wrong tries with this code. Ask for a new one.',
  INVALID_TOTP_CODE: 'That authenticator code is not right. Check the time on your device and try again.',
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: 'Enter the code from your authenticator app to finish signing in.',
  EMAIL_ALREADY_VERIFIED: 'This e-mail is already verified.',
  REDIRECT_URL_NOT_WHITELISTED:
    'This address is not allowed to receive sign-in links. The app needs to add it to its trusted domains.',
  TEAM_PERMISSION_REQUIRED: 'You do not have permission to do that in this team.',
  TEAM_MEMBERSHIP_NOT_FOUND: 'You are not a member of this team.',
  TEAM_MEMBERSHIP_ALREADY_EXISTS: 'That person is already a member of the team.',
  OAUTH_PROVIDER_ACCESS_DENIED: 'Sign-in was cancelled at the provider.',
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: 'That account is already linked to another user.',
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION: 'You already linked a different account of this provider.',
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: 'This e-mail is already used to sign in to another account.',
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE:
    'The linked account has not granted this permission yet. Link it again to grant it.',
  OUTER_OAUTH_TIMEOUT: 'Sign-in took too long. Please start again.',
  USER_AUTHENTICATION_REQUIRED: 'Please sign in first.',
  NOT_SIGNED_IN: 'Please sign in first.',
  NETWORK_OFFLINE: 'You are offline. Your changes were not sent; try again when you are back online.',
  NETWORK_UNREACHABLE: 'The service cannot be reached right now. Please try again in a moment.',
  OAUTH_FLOW_NOT_FOUND: 'This sign-in was already completed or has expired. Please start again.',
  OAUTH_STATE_MISMATCH: 'This sign-in link does not belong to this browser. Please start again.',
  UNSAFE_REDIRECT: 'This link tried to send you to another site after signing in, so it was not followed.',
  BROKER_UNAVAILABLE: 'The sign-in service of this page could not start. Reload the page to try again.',
  // Their messages carry raw service bodies (possibly JSON): not for people.
  HTTP_STATUS_ERROR: 'The service could not handle this request. Please try again in a moment.',
  PROTOCOL_ERROR: 'The service sent an answer this app does not understand. Please try again later.',
};

const FALLBACK = 'Something went wrong. Please try again.';

/** An own message is shown only when it reads as text: not empty, not a JSON body. */
function readable(message: string): boolean {
  const text = message.trim();
  return text !== '' && !/^[[{]/.test(text);
}

/** A sentence a person understands, for any error. */
export function describeError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  // A plain 4xx from the service is usually a sentence written for people ("Contact channel already
  // exists"); 5xx bodies and machine-looking ones are not.
  const plain = error as { status?: unknown; body?: unknown } | null;
  if (
    code === 'HTTP_STATUS_ERROR' &&
    typeof plain?.status === 'number' &&
    plain.status < 500 &&
    typeof plain.body === 'string'
  ) {
    const text = plain.body.trim();
    if (text.length > 0 && text.length <= 300 && readable(text) && !text.includes('\n')) return text;
  }
  if (typeof code === 'string' && sentences[code] !== undefined) return sentences[code];
  if (
    error instanceof AuthBrokerError ||
    (typeof error === 'object' && error !== null && typeof (error as SerializedError).message === 'string')
  ) {
    const { message } = error as { message: string };
    if (readable(message)) return message;
  }
  return FALLBACK;
}
