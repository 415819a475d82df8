import { InvalidArgumentError } from './errors/errors.js';

/** Rules about tokens that every layer checks; kept apart so the tab can check them cheaply. */

/** How close to expiry an access token is renewed before use (PROTOCOL.md §9.1). */
export const DEFAULT_TOKEN_MARGIN_MILLIS = 20_000;
/** Margins this long would renew nearly every token; the service's SDK refuses them too. */
export const MAX_TOKEN_MARGIN_MILLIS = 60_000;

/** Catches the classic `${undefined}` bug before it reaches the service as a token. */
export function assertUsableAccessToken(token: unknown, argument = 'accessToken'): asserts token is string {
  if (typeof token !== 'string' || token.trim() === '')
    throw new InvalidArgumentError(argument, `${argument} must be a non-empty string.`);
  if (token === 'undefined' || token === 'null') {
    throw new InvalidArgumentError(argument, `${argument} is the string ${JSON.stringify(token)} (a missing value?).`);
  }
}

/**
 * Checks a `tokenMarginMillis` option (a number of ms from 0 to under 60000), with an InvalidArgumentError otherwise.
 */
export function assertTokenMargin(margin: unknown, argument = 'tokenMarginMillis'): asserts margin is number {
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 0) {
    throw new InvalidArgumentError(argument, `${argument} must be a non-negative number of milliseconds.`);
  }
  if (margin >= MAX_TOKEN_MARGIN_MILLIS) {
    throw new InvalidArgumentError(
      argument,
      `${argument} must be less than ${MAX_TOKEN_MARGIN_MILLIS} ms (got ${margin}).`,
    );
  }
}
