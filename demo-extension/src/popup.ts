/** The popup: sign in (password or the emulator's mock GitHub), see who is signed in, sign out. */
import { createExtensionClient } from '../../client/extension/index.js';
import { startDriver } from './testDriver.js';
import { options } from './config.js';
import { byId, clearError, showError, showStatus, shownUser } from './ui.js';

const auth = createExtensionClient(options);
(globalThis as { authbrokerDemo?: unknown }).authbrokerDemo = { auth };

function render(): void {
  const user = shownUser(auth.getSnapshot({ kind: 'currentUser' }));
  if (user === undefined) return;
  showStatus(user, 'Signed out');
  byId('sign-in').hidden = user !== null;
  byId('signed-in').hidden = user === null;
}
auth.subscribe({ kind: 'currentUser' }, render);
render();

byId<HTMLFormElement>('sign-in').addEventListener('submit', (event) => {
  event.preventDefault();
  clearError();
  auth
    .signInWithPassword({
      email: byId<HTMLInputElement>('email').value,
      password: byId<HTMLInputElement>('password').value,
    })
    .catch(showError);
});
// The background runs the provider's window: this popup closes when it takes focus, and nothing is lost.
byId('github-button').addEventListener('click', () => {
  clearError();
  auth.signInWithOAuth('github').catch(showError);
});
byId('sign-out-button').addEventListener('click', () => auth.signOut().catch(showError));
byId('options-button').addEventListener('click', () => {
  const runtime = (globalThis as { chrome?: { runtime?: { openOptionsPage?(): unknown } } }).chrome?.runtime;
  void Promise.resolve(runtime?.openOptionsPage?.()).catch(showError);
});

declare const __AUTHBROKER_TEST_DRIVER__: string | null;
if (__AUTHBROKER_TEST_DRIVER__ !== null) startDriver(__AUTHBROKER_TEST_DRIVER__, 'popup', auth, {});
