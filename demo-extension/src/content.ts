/**
 * The content script: a small badge on every page saying who is signed in to the extension. It
 * reaches the background's broker over a port; nothing is kept in the web page's storage, and
 * nothing the page's scripts can read is put in its DOM (pageBadge.ts: a closed shadow root, the
 * name drawn on a canvas, no attributes).
 */
import { createContentScriptClient } from '../../client/extension/content.js';
import type { User } from '../../client/extension/index.js';
import { startDriver } from './testDriver.js';
import { options } from './config.js';
import { createPageBadge } from './pageBadge.js';

const auth = createContentScriptClient(options);
const badge = createPageBadge();

function render(): void {
  const snapshot = auth.getSnapshot({ kind: 'currentUser' });
  if (snapshot === undefined || (snapshot.status === 'pending' && snapshot.data === undefined)) return;
  const user = (snapshot.data ?? null) as User | null;
  badge.show(
    user === null
      ? 'authbroker demo: signed out'
      : `authbroker demo: ${user.displayName ?? user.primaryEmail ?? user.id}`,
  );
}
auth.subscribe({ kind: 'currentUser' }, render);
auth.connect().catch((error: unknown) => {
  badge.show(`authbroker demo: ${error instanceof Error ? error.message : String(error)}`);
});

declare const __AUTHBROKER_TEST_DRIVER__: string | null;
if (__AUTHBROKER_TEST_DRIVER__ !== null)
  startDriver(__AUTHBROKER_TEST_DRIVER__, 'content', auth, {
    // What the badge shows, read from here (the page cannot): the tests check the user is shown, yet not to the page.
    badge: async () => badge.shown(),
  });
