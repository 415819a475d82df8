/** One probe of the network diagnostics (protocol/diagnostics.ts), carried by a NetworkError. */
export interface ProbeResult {
  url: string;
  /** HTTP status when the probe got an answer; null when it failed before one. */
  status: number | null;
  reachable: boolean;
  /** Why it failed (the error's message), when it did. */
  error: string | null;
  elapsedMillis: number;
}

/**
 * What we know about the network after a request could not get through. Only the service's own
 * origin is probed: no third-party host is ever contacted.
 */
export interface NetworkDiagnostics {
  /** `navigator.onLine` where the runtime has it (or what the tabs last reported), else null. */
  navigatorOnline: boolean | null;
  /** `{baseUrl}/api/v1` */
  apiRoot: ProbeResult;
  /** `{baseUrl}/health`, outside the API as the service defines it. */
  health: ProbeResult;
  checkedAtMillis: number;
}

/**
 * Plain-data form of any authbroker error. It survives JSON and structured cloning, so errors
 * can cross the broker ↔ tab boundary and be rebuilt as the same class on the other side.
 */
export type SerializedError =
  | { kind: 'known'; code: string; message: string; status: number; details?: unknown; lineage?: string[] }
  | { kind: 'http-status'; code: 'HTTP_STATUS_ERROR'; message: string; status: number; body: string }
  | { kind: 'protocol'; code: 'PROTOCOL_ERROR'; message: string }
  | {
      kind: 'network';
      code: NetworkErrorCode;
      message: string;
      diagnostics: NetworkDiagnostics | null;
      attempts: number;
    }
  | { kind: 'invalid-argument'; code: 'INVALID_ARGUMENT'; message: string; argument: string }
  | { kind: 'client'; code: ClientErrorCode; message: string };

/** What a thrown value says: an error's message, anything else as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Every error authbroker throws has a stable `code` to switch on and a plain-data form. */
export abstract class AuthBrokerError extends Error {
  abstract readonly code: string;
  /** Its plain-data form, which survives JSON and structured cloning. */
  abstract toJSON(): SerializedError;
}

/**
 * A response with an error status that is not a known error (PROTOCOL.md §2.3), e.g. a plain 403.
 * The broker and the server apps make it from a response with `responseStatusError`
 * (errors/redact.ts), which redacts the body first; a tab rebuilds it from the broker's plain-data
 * form as it came (the redaction is the broker's work, and never in a tab's bundle).
 */
export class HttpStatusError extends AuthBrokerError {
  override readonly name = 'HttpStatusError';
  readonly code = 'HTTP_STATUS_ERROR';
  // Declared and assigned rather than parameter properties, which compile to both (bytes in every tab).
  declare readonly status: number;
  /** The response body as text (the service's plain-text message), with anything token-like redacted. */
  declare readonly body: string;
  /** The Retry-After header, when the response had one the runtime could read. */
  declare readonly retryAfter: string | null;
  constructor(status: number, body: string, message?: string, retryAfter: string | null = null) {
    super(
      message ?? (body.trim() === '' ? `The service answered with HTTP ${status}.` : `HTTP ${status}: ${body.trim()}`),
    );
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }
  /** Its plain-data form. */
  toJSON(): SerializedError {
    return { kind: 'http-status', code: this.code, message: this.message, status: this.status, body: this.body };
  }
}

/** The service answered in a way the protocol does not allow (e.g. header and body disagree). */
export class ProtocolError extends AuthBrokerError {
  override readonly name = 'ProtocolError';
  readonly code = 'PROTOCOL_ERROR';
  /** Its plain-data form. */
  toJSON(): SerializedError {
    return { kind: 'protocol', code: this.code, message: this.message };
  }
}

/**
 * `NETWORK_OFFLINE`: the device is offline (the browser says so): a request could not be sent.
 * `NETWORK_UNREACHABLE`: the service did not answer while the device is online (after a request's retries, or
 * known already: a write is then not sent); the message names the service.
 */
export type NetworkErrorCode = 'NETWORK_OFFLINE' | 'NETWORK_UNREACHABLE';

/** The request never got an answer, after every allowed attempt. */
export class NetworkError extends AuthBrokerError {
  override readonly name = 'NetworkError';
  declare readonly code: NetworkErrorCode;
  /** What was checked after the last failure; null when not collected. */
  declare readonly diagnostics: NetworkDiagnostics | null;
  /** How many attempts were made. */
  declare readonly attempts: number;
  constructor(
    code: NetworkErrorCode,
    message: string,
    diagnostics: NetworkDiagnostics | null,
    attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.diagnostics = diagnostics;
    this.attempts = attempts;
  }
  /** Its plain-data form. */
  toJSON(): SerializedError {
    return {
      kind: 'network',
      code: this.code,
      message: this.message,
      diagnostics: this.diagnostics,
      attempts: this.attempts,
    };
  }
}

/** A caller passed something a public function cannot accept; nothing was sent or changed. */
export class InvalidArgumentError extends AuthBrokerError {
  override readonly name = 'InvalidArgumentError';
  readonly code = 'INVALID_ARGUMENT';
  /** Name of the offending argument, as a path such as `options.email`. */
  declare readonly argument: string;
  constructor(argument: string, message: string) {
    super(message);
    this.argument = argument;
  }
  /** Its plain-data form. */
  toJSON(): SerializedError {
    return { kind: 'invalid-argument', code: this.code, message: this.message, argument: this.argument };
  }
}

/**
 * The codes of {@link ClientError}: failures on our side of the wire (see the troubleshooting page of the docs for
 * each).
 */
export type ClientErrorCode =
  | 'BROKER_UNAVAILABLE'
  | 'BROKER_CLOSED'
  | 'STORAGE_UNAVAILABLE'
  | 'OAUTH_STATE_MISMATCH'
  | 'OAUTH_FLOW_NOT_FOUND'
  | 'OAUTH_CALLBACK_INVALID'
  | 'NOT_SIGNED_IN'
  | 'LOCK_TIMEOUT'
  | 'UNSAFE_CREDENTIALS'
  /** A redirect after sign-in to somewhere that is not this app (another site, javascript:…). */
  | 'UNSAFE_REDIRECT'
  /** An optional package an entry needs is not installed (e.g. authbroker-emulator for `authbroker/emulator`). */
  | 'PACKAGE_NOT_INSTALLED'
  /** A passkey ceremony in a browser without WebAuthn (`passkeysAvailable()` is false). */
  | 'PASSKEYS_UNAVAILABLE'
  /** A browser extension's sign-in window was closed (or failed) before the provider sent the person back. */
  | 'OAUTH_CANCELLED'
  /**
   * A browser-extension context the extension's background does not serve (a content script it did not allow, a method
   * it did not open to them).
   */
  | 'EXTENSION_CONTEXT_REFUSED'
  /** A CLI login's code that cannot be confirmed (unknown, expired, or confirmed already). */
  | 'CLI_LOGIN_INVALID'
  /** A CLI login nobody confirmed in a browser before it expired. */
  | 'CLI_LOGIN_EXPIRED'
  /** A CLI login whose session an earlier poll of it took (its answer lost on the way, or another process). */
  | 'CLI_LOGIN_USED'
  /** `client.fetch` to an origin the app did not allow (`appRequests.origins`): nothing was sent. */
  | 'ORIGIN_NOT_ALLOWED'
  /** An access token asked of a broker that never gives one to a page (`appRequests.attachInServiceWorker`). */
  | 'TOKEN_WITHHELD'
  /** A write kept while offline was not sent: the user signed out, or another user signed in, first. */
  | 'WRITE_DROPPED';

/** Failures on our side of the wire (the broker, the tab, the OAuth dance) rather than the service's. */
export class ClientError extends AuthBrokerError {
  override readonly name = 'ClientError';
  declare readonly code: ClientErrorCode;
  constructor(code: ClientErrorCode, message: string) {
    super(message);
    this.code = code;
  }
  /** Its plain-data form. */
  toJSON(): SerializedError {
    return { kind: 'client', code: this.code, message: this.message };
  }
}
