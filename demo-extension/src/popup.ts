/**
 * The popup and the side panel (one page, two places): sign in (password or the emulator's mock
 * GitHub), see who is signed in, sign out.
 */
import { createExtensionClient } from '../../client/extension/index.js';
import { startDriver } from './testDriver.js';
import { options } from './config.js';
import { signInWithProvider } from './socialSignIn.js';
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
/**
 * The background runs the provider's window: a popup closes when it takes focus, and nothing is lost. Whatever would
 * make the service refuse the window's return is said here first, while the popup is still open.
 */
async function signInWithGitHub(): Promise<string | null> {
  clearError();
  const problem = await signInWithProvider(auth, 'github');
  if (problem !== null) showError(problem);
  return problem;
}
byId('github-button').addEventListener('click', () => void signInWithGitHub());
byId('sign-out-button').addEventListener('click', () => auth.signOut().catch(showError));
byId('options-button').addEventListener('click', () => {
  const runtime = (globalThis as { chrome?: { runtime?: { openOptionsPage?(): unknown } } }).chrome?.runtime;
  void Promise.resolve(runtime?.openOptionsPage?.()).catch(showError);
});

declare const __AUTHBROKER_TEST_DRIVER__: string | null;
if (__AUTHBROKER_TEST_DRIVER__ !== null)
  startDriver(__AUTHBROKER_TEST_DRIVER__, location.pathname.endsWith('/sidepanel.html') ? 'sidepanel' : 'popup', auth, {
    // The GitHub button, as a user presses it: what the page then shows (null: nothing went wrong).
    githubButton: async () => signInWithGitHub(),
  });
