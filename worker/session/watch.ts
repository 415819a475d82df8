/** A session as tabs watch it: its state without its key or a token, the same object while nothing changes. */
import type { Watchable } from '../../contract/events.js';
import type { SessionInfo } from '../../contract/state.js';
import type { Session, SessionState } from './session.js';

/** A session's state as tabs may see it: never its key or a token. */
function sessionInfo(state: SessionState): SessionInfo {
  return state.status === 'signed-in' ? { status: 'signed-in', userId: state.userId } : state;
}

export function watchSession(session: Session | null): Watchable<SessionInfo> {
  const signedOut: SessionInfo = { status: 'signed-out', lastEnd: null };
  let last: { state: SessionState; info: SessionInfo } | null = null;
  // The same object while the state is the same, so that watchers can compare by identity.
  const current = (): SessionInfo => {
    if (session === null) return signedOut;
    const state = session.state();
    if (last === null || JSON.stringify(last.state) !== JSON.stringify(state))
      last = { state, info: sessionInfo(state) };
    return last.info;
  };
  return { current, subscribe: (listener) => session?.subscribe(() => listener(current())) ?? (() => undefined) };
}
