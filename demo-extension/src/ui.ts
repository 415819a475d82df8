import type { QuerySnapshot, User } from '../../client/extension/index.js';

/** The little DOM helpers the popup and the options page share. */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export function showError(error: unknown): void {
  byId('error').textContent = error instanceof Error ? error.message : String(error);
}

export function clearError(): void {
  byId('error').textContent = '';
}

/** The user a snapshot shows (null: signed out), or undefined while the broker has not said. */
export function shownUser(snapshot: QuerySnapshot | undefined): User | null | undefined {
  if (snapshot === undefined || (snapshot.status === 'pending' && snapshot.data === undefined)) return undefined;
  return (snapshot.data ?? null) as User | null;
}

/** The status line of a page: who is signed in, or `signedOut`. */
export function showStatus(user: User | null, signedOut: string): void {
  byId('status').textContent =
    user === null ? signedOut : `Signed in as ${user.displayName ?? user.primaryEmail ?? user.id}`;
  byId('status').dataset.userId = user?.id ?? '';
}
