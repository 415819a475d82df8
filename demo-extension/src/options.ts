/** The options page: the signed-in account, renaming it, signing out. */
import { createExtensionClient } from '../../client/extension/index.js';
import { startDriver } from './testDriver.js';
import { options } from './config.js';
import { byId, clearError, showError, showStatus, shownUser } from './ui.js';

const auth = createExtensionClient(options);
(globalThis as { authbrokerDemo?: unknown }).authbrokerDemo = { auth };

function render(): void {
  const user = shownUser(auth.getSnapshot({ kind: 'currentUser' }));
  if (user === undefined) return;
  showStatus(user, 'Signed out: sign in from the toolbar popup.');
  byId('account').hidden = user === null;
  byId('rename').hidden = user === null;
  byId('sign-out-button').hidden = user === null;
  if (user === null) return;
  byId('user-id').textContent = user.id;
  byId('user-email').textContent = user.primaryEmail ?? '—';
  byId('user-name').textContent = user.displayName ?? '—';
}
auth.subscribe({ kind: 'currentUser' }, render);
render();

byId<HTMLFormElement>('rename').addEventListener('submit', (event) => {
  event.preventDefault();
  clearError();
  auth.updateUser({ displayName: byId<HTMLInputElement>('display-name').value }).catch(showError);
});
byId('sign-out-button').addEventListener('click', () => auth.signOut().catch(showError));

declare const __AUTHBROKER_TEST_DRIVER__: string | null;
if (__AUTHBROKER_TEST_DRIVER__ !== null) startDriver(__AUTHBROKER_TEST_DRIVER__, 'options', auth, {});
