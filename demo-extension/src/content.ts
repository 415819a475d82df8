/**
 * The content script: a small badge on every page saying who is signed in to the extension. It
 * reaches the background's broker over a port; nothing is kept in the web page's storage.
 */
import { createContentScriptClient } from '../../client/extension/content.js';
import type { User } from '../../client/extension/index.js';
import { startDriver } from './testDriver.js';
import { options } from './config.js';

const auth = createContentScriptClient(options);
const badge = document.createElement('div');
badge.setAttribute('data-authbroker-demo', 'badge');
badge.style.cssText =
  'position:fixed;bottom:8px;left:8px;z-index:2147483647;font:12px system-ui,sans-serif;background:#111827;color:#fff;padding:4px 8px;border-radius:6px;opacity:.85';

function render(): void {
  const snapshot = auth.getSnapshot({ kind: 'currentUser' });
  if (snapshot === undefined || (snapshot.status === 'pending' && snapshot.data === undefined)) return;
  const user = (snapshot.data ?? null) as User | null;
  badge.textContent =
    user === null
      ? 'authbroker demo: signed out'
      : `authbroker demo: ${user.displayName ?? user.primaryEmail ?? user.id}`;
  badge.dataset.userId = user?.id ?? '';
  if (!badge.isConnected) document.documentElement.append(badge);
}
auth.subscribe({ kind: 'currentUser' }, render);
auth.connect().catch((error: unknown) => {
  badge.textContent = `authbroker demo: ${error instanceof Error ? error.message : String(error)}`;
  badge.dataset.error = 'true';
  document.documentElement.append(badge);
});

declare const __AUTHBROKER_TEST_DRIVER__: string | null;
if (__AUTHBROKER_TEST_DRIVER__ !== null) startDriver(__AUTHBROKER_TEST_DRIVER__, 'content', auth, {});
