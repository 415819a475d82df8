import { useEffect, useState, type ReactNode } from 'react';
import { describeError } from '../../../client/messages.js';
import { useAdminSession, useBrokerClient, useBrokerStatus, useConnectivity, useSession } from '../../../client/react/index.js';
import { formatRelative } from '../lib/format.js';
import { T } from '../testids.js';
import { ProbeLine } from './ProbeLine.js';

const STORAGE_KEY = 'authbroker-demo:broker-panel-open';

function readOpen(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) === '1';
  } catch {
    return false;
  }
}

function Item({ label, children, testid }: { label: string; children: ReactNode; testid?: string }) {
  return (
    <div className="panel-item">
      <dt>{label}</dt>
      <dd data-testid={testid}>{children}</dd>
    </div>
  );
}

/**
 * What the broker is doing, on every page: which host runs it, how many tabs share it, how often
 * it renewed the token, the cache, the network and how the last session ended. Collapsible; the
 * summary line stays visible.
 */
export function BrokerPanel() {
  const client = useBrokerClient();
  const status = useBrokerStatus();
  const connectivity = useConnectivity();
  const session = useSession();
  const adminSession = useAdminSession();
  const [open, setOpen] = useState(readOpen);
  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, open ? '1' : '0');
    } catch {
      // Private mode: the panel just forgets.
    }
  }, [open]);

  const mode = client.mode ?? status?.mode ?? 'connecting…';
  const state = connectivity?.state ?? 'online';
  const lastEnd = session.status === 'signed-out' ? session.lastEnd : null;
  const warnings = status?.warnings ?? [];
  return (
    <aside className={open ? 'broker-panel is-open' : 'broker-panel'} aria-label="Broker status" data-testid={T.brokerPanel}>
      <button type="button" className="panel-summary" onClick={() => setOpen(!open)} aria-expanded={open} data-testid={T.brokerPanelToggle}>
        <span className={`dot dot-${state}`} aria-hidden="true" />
        <span className="panel-title">Broker</span>
        <span className="panel-chip">
          mode <b data-testid={T.brokerMode}>{mode}</b>
        </span>
        <span className="panel-chip">
          tabs <b data-testid={T.brokerTabs}>{status?.tabsConnected ?? '–'}</b>
        </span>
        <span className="panel-chip">
          refreshes <b data-testid={T.brokerRefreshes}>{status?.tokenRefreshes ?? '–'}</b>
        </span>
        <span className="panel-chip">
          network <b data-testid={T.brokerConnectivity}>{state}</b>
        </span>
        <span className="panel-chip panel-chip-wide">
          session <b data-testid={T.brokerSession}>{session.status}</b>
        </span>
        {warnings.length > 0 && <span className="panel-chip panel-warn">{warnings.length} warning{warnings.length === 1 ? '' : 's'}</span>}
        <span className="panel-caret" aria-hidden="true">
          {open ? '▾' : '▴'}
        </span>
      </button>
      <div className="panel-details" hidden={!open}>
        <div className="panel-group">
          <h3>Host</h3>
          <dl>
            <Item label="Mode">{mode}</Item>
            <Item label="Broker">{status ? `${status.brokerId.slice(0, 8)} · v${status.version}` : '–'}</Item>
            <Item label="Started">{status ? formatRelative(status.startedAtMillis) : '–'}</Item>
            <Item label="Tabs connected">{status?.tabsConnected ?? '–'}</Item>
          </dl>
        </div>
        <div className="panel-group">
          <h3>Cache</h3>
          <dl>
            <Item label="Token refreshes">{status?.tokenRefreshes ?? '–'}</Item>
            <Item label="Cache entries" testid={T.brokerCacheEntries}>
              {status?.cacheEntries ?? '–'}
            </Item>
            <Item label="Subscriptions" testid={T.brokerSubscriptions}>
              {status?.subscriptions ?? '–'}
            </Item>
          </dl>
        </div>
        <div className="panel-group">
          <h3>Session</h3>
          <dl>
            <Item label="User">{session.status === 'signed-in' ? `signed in (${(session.userId ?? '').slice(0, 8)}…)` : session.status}</Item>
            <Item label="Last end" testid={T.sessionEndReason}>
              {lastEnd?.reason ?? '–'}
            </Item>
            <Item label="Why" testid={T.sessionEndMessage}>
              {lastEnd?.message ?? '–'}
            </Item>
            {lastEnd && <Item label="When">{new Date(lastEnd.atMillis).toLocaleTimeString()}</Item>}
            <Item label="Admin">{adminSession.status}</Item>
          </dl>
        </div>
        <div className="panel-group">
          <h3>Network</h3>
          <dl>
            <Item label="State">
              {state}
              {connectivity ? ` since ${new Date(connectivity.sinceMillis).toLocaleTimeString()}` : ''}
            </Item>
            <Item label="Browser">{connectivity?.browserOnline === null || connectivity === null ? 'unknown' : connectivity.browserOnline ? 'online' : 'offline'}</Item>
            <Item label="Last error">{connectivity?.lastError ? describeError(connectivity.lastError) : 'none'}</Item>
            <Item label="Diagnostics" testid={T.brokerDiagnostics}>
              {connectivity?.diagnostics ? (
                <ul className="plain">
                  <ProbeLine label="API" probe={connectivity.diagnostics.apiRoot} />
                  <ProbeLine label="Health" probe={connectivity.diagnostics.health} />
                </ul>
              ) : (
                'no probe needed yet'
              )}
            </Item>
          </dl>
        </div>
        <div className="panel-group">
          <h3>Storage</h3>
          <dl>
            <Item label="Kind" testid={T.brokerStorage}>
              {status?.storage ?? '–'}
            </Item>
            <Item label="Warnings" testid={T.brokerWarnings}>
              {warnings.length === 0 ? (
                'none'
              ) : (
                <ul className="plain">
                  {warnings.map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              )}
            </Item>
          </dl>
        </div>
      </div>
    </aside>
  );
}
