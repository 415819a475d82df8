import { createKnownError } from '../../../protocol/errors/create.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from '../../../protocol/validation.js';

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH };

/**
 * The service's own password rules and messages ("Password too short. Minimum length is 8."),
 * checked before anything is sent. Returns null when the password may be sent.
 */
export function passwordMessage(password: string): string | null {
  return passwordProblem(password)?.message ?? null;
}

/** The service's message for a confirmation that differs ("Passwords do not match."). */
export function confirmationMessage(password: string, confirmation: string): string | null {
  return password === confirmation ? null : createKnownError('PASSWORD_CONFIRMATION_MISMATCH').message;
}

/** Both checks at once: the first problem, or null. */
export function newPasswordProblem(password: string, confirmation: string): string | null {
  return passwordMessage(password) ?? confirmationMessage(password, confirmation);
}
