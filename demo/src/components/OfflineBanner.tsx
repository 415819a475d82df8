import { describeError } from '../../../client/messages.js';
import { useConnectivity, useQuery } from '../../../client/react/index.js';
import { formatRelative } from '../lib/format.js';
import { T } from '../testids.js';
import { ProbeLine } from './ProbeLine.js';

/**
 * While what is shown is the copy kept from the last visit (a new tab, before the broker has
 * confirmed it, or offline): when it was saved.
 */
function StaleNotice() {
  const { isStale, updatedAt } = useQuery({ kind: 'currentUser' });
  if (!isStale || updatedAt === null) return null;
  return (
    <div className="stale-notice" role="status">
      <p data-testid={T.staleNotice}>Showing what was saved {formatRelative(updatedAt)}; updating…</p>
    </div>
  );
}

/** Shown while the broker considers the service unreachable; it keeps probing by itself. */
export function OfflineBanner() {
  const connectivity = useConnectivity();
  if (connectivity?.state !== 'offline') return <StaleNotice />;
  const d = connectivity.diagnostics;
  const browserOffline = connectivity.browserOnline === false;
  return (
    <div className="offline-banner" role="alert" data-testid={T.offlineBanner}>
      <div className="offline-inner">
        <strong>{browserOffline ? 'You are offline.' : 'The service does not answer.'}</strong>{' '}
        <span>
          {/* The broker's own sentence names the service (and, on this machine, how to start the emulator). */}
          {browserOffline ? '' : `${connectivity.lastError?.message ?? ''} `}
          Everything you see stays available; changes cannot be saved until{' '}
          {browserOffline ? 'you are back online' : 'it answers'}. Checking again by itself.
        </span>
        <ul className="offline-diagnostics" data-testid={T.offlineDiagnostics}>
          <li>
            Browser network:{' '}
            {connectivity.browserOnline === null ? 'unknown' : connectivity.browserOnline ? 'online' : 'offline'}
          </li>
          {d && <ProbeLine label="API root" probe={d.apiRoot} />}
          {d && <ProbeLine label="Health check" probe={d.health} />}
          {connectivity.lastError && (
            <li>
              Last error
              {connectivity.lastErrorAtMillis !== null
                ? ` (${formatRelative(connectivity.lastErrorAtMillis)})`
                : ''}: {connectivity.lastError.code} ({describeError(connectivity.lastError)})
            </li>
          )}
          <li>Offline since {new Date(connectivity.sinceMillis).toLocaleTimeString()}</li>
        </ul>
        <StaleNotice />
      </div>
    </div>
  );
}
