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
    <p className="muted small" data-testid={T.staleNotice}>
      Showing what was saved {formatRelative(updatedAt)}; updating…
    </p>
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
        <strong>{browserOffline ? 'You are offline.' : 'The service cannot be reached.'}</strong>{' '}
        <span>
          Everything you see stays available; changes wait until the connection is back. Retrying automatically.
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
                : ''}: {describeError(connectivity.lastError)}
            </li>
          )}
          <li>Offline since {new Date(connectivity.sinceMillis).toLocaleTimeString()}</li>
        </ul>
        <StaleNotice />
      </div>
    </div>
  );
}
