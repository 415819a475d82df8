import { ClientError } from '../../protocol/errors/errors.js';

/**
 * Whether this browser can run passkey ceremonies: it has WebAuthn (`PublicKeyCredential`).
 * WebKitGTK, some WebViews and insecure pages have none; there a passkey button could only fail,
 * so apps ask this first and offer the other ways to sign in. Cheap and synchronous: it loads
 * nothing of the (lazy) passkey module.
 */
export function passkeysAvailable(): boolean {
  return typeof (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential === 'function';
}

/** What a passkey ceremony throws, before asking the service anything, where there is no WebAuthn. */
export function passkeysUnavailable(): ClientError {
  return new ClientError(
    'PASSKEYS_UNAVAILABLE',
    'Passkeys are not available in this browser (it has no WebAuthn). Sign in another way.',
  );
}
