/**
 * The abstract family codes of the known-error tree (PROTOCOL.md §8.2). They are never sent on
 * the wire; they exist so that callers can ask "is this error one of that family?".
 * Each maps to its parent family, or null for a direct child of the root.
 */
export const knownErrorFamilies = {
  PROJECT_AUTHENTICATION_ERROR: null,
  INVALID_PROJECT_AUTHENTICATION: 'PROJECT_AUTHENTICATION_ERROR',
  INVALID_ADMIN_ACCESS_TOKEN: 'INVALID_PROJECT_AUTHENTICATION',
  PROJECT_AUTHENTICATION_REQUIRED: 'PROJECT_AUTHENTICATION_ERROR',
  SESSION_AUTHENTICATION_ERROR: null,
  INVALID_SESSION_AUTHENTICATION: 'SESSION_AUTHENTICATION_ERROR',
  INVALID_ACCESS_TOKEN: 'INVALID_SESSION_AUTHENTICATION',
  REFRESH_TOKEN_ERROR: null,
  PASSWORD_REQUIREMENTS_NOT_MET: null,
  VERIFICATION_ERROR: null,
} as const satisfies Record<string, string | null>;

/**
 * A family of known errors (`INVALID_ACCESS_TOKEN`, `REFRESH_TOKEN_ERROR`…), which {@link isKnownError} matches
 * with every code in it.
 */
export type KnownErrorFamily = keyof typeof knownErrorFamilies;
