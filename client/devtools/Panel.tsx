import { useEffect, useState } from 'react';
import type { SessionDiagnostics } from '../../contract/diagnostics.js';
import type { BrokerDiagnostics } from '../../contract/queries.js';
import type { BrokerClient } from '../brokerClient.js';
import { ago, countdown, errorText, timeOfDay } from './format.js';
import { hostReason } from './hostReason.js';
import { Fact, Section } from './parts.js';
import * as s from './styles.js';
import { CacheTable, ConnectivityHistory, RequestTable } from './tables.js';
import { PendingChangesTable } from './pendingChangesTable.js';
import { devtoolsIds as ids } from './testIds.js';
import { tabOfPanel } from './useBrokerDiagnostics.js';

export interface PanelProps {
  client: BrokerClient;
  diagnostics: BrokerDiagnostics | undefined;
  panelId: string;
  onClose(): void;
}

/** The time, once a second while the panel is open: countdowns and ages move; the broker is not asked. */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function SessionFacts({ session, now, admin }: { session: SessionDiagnostics; now: number; admin?: boolean }) {
  const end = session.lastEnd;
  // The main session's facts carry the test ids; the owner's session is the same shape without them.
  const id = (testid: string) => (admin ? undefined : testid);
  return (
    <dl style={s.facts}>
      <Fact label="State">{session.status}</Fact>
      <Fact label="User" testid={id(ids.userId)}>
        {session.userId ?? '–'}
      </Fact>
      <Fact label="Access token" testid={id(ids.expiry)}>
        {session.accessTokenExpiresAtMillis === null
          ? '–'
          : `expires in ${countdown(session.accessTokenExpiresAtMillis, now)}`}
      </Fact>
      <Fact label="Renewals">{session.renewals}</Fact>
      <Fact label="Last sign-out" testid={id(ids.endReason)}>
        {end?.reason ?? '–'}
      </Fact>
      <Fact label="Why" testid={id(ids.endMessage)}>
        {end?.message ?? '–'}
      </Fact>
      {end && <Fact label="When">{`${timeOfDay(end.atMillis)}${end.code ? ` (${end.code})` : ''}`}</Fact>}
    </dl>
  );
}

function Overview({ diagnostics, panelId, now }: { diagnostics: BrokerDiagnostics; panelId: string; now: number }) {
  const { host, connectivity, warnings } = diagnostics;
  const thisTab = tabOfPanel(diagnostics, panelId);
  return (
    <div style={s.columns}>
      <Section title="Host">
        <dl style={s.facts}>
          <Fact label="Mode" testid={ids.mode}>
            {host.mode}
          </Fact>
          <Fact label="Why" testid={ids.modeReason}>
            {hostReason(host.mode, warnings)}
          </Fact>
          <Fact label="Broker">{`${host.brokerId.slice(0, 8)} · v${host.version} · started ${ago(host.startedAtMillis, now)}`}</Fact>
          <Fact label="This tab" testid={ids.thisTab}>
            {thisTab === null ? '–' : `tab ${thisTab}`}
          </Fact>
          <Fact label="Tabs">
            <ul style={s.list}>
              {diagnostics.tabs.map((tab) => (
                <li key={tab.tab} data-testid={ids.tabRow} data-tab={tab.tab} data-this={tab.tab === thisTab}>
                  {`tab ${tab.tab}${tab.tab === thisTab ? ' (this tab)' : ''} · ${tab.subscriptions} subscription${tab.subscriptions === 1 ? '' : 's'}${tab.panels.length > 0 ? ' · devtools open' : ''}`}
                </li>
              ))}
            </ul>
          </Fact>
        </dl>
      </Section>
      <Section title="Session">
        <SessionFacts session={diagnostics.session} now={now} />
        {diagnostics.adminSession && diagnostics.adminSession.status !== 'signed-out' && (
          <>
            <p style={s.note}>Project owner (admin)</p>
            <SessionFacts session={diagnostics.adminSession} now={now} admin />
          </>
        )}
      </Section>
      <Section title="Network">
        <dl style={s.facts}>
          <Fact label="State" testid={ids.network}>
            {connectivity.state}
          </Fact>
          <Fact label="Since">{ago(connectivity.sinceMillis, now)}</Fact>
          <Fact label="Browser">
            {connectivity.browserOnline === null ? 'unknown' : connectivity.browserOnline ? 'online' : 'offline'}
          </Fact>
          <Fact label="Last error">
            {connectivity.lastError === null
              ? 'none'
              : `${errorText(connectivity.lastError)} ${ago(connectivity.lastError.atMillis, now)}`}
          </Fact>
          <Fact label="Failures in a row">{connectivity.consecutiveFailures}</Fact>
          <Fact label="Last success">
            {connectivity.lastSuccessAtMillis === null ? '–' : ago(connectivity.lastSuccessAtMillis, now)}
          </Fact>
        </dl>
      </Section>
      <Section title="Storage">
        <dl style={s.facts}>
          <Fact label="Kind" testid={ids.storage}>
            {host.storage}
          </Fact>
          <Fact label="Warnings" testid={ids.warnings}>
            {warnings.length === 0 ? (
              'none'
            ) : (
              <ul style={s.list}>
                {warnings.map((warning) => (
                  <li key={warning}>{warning}</li>
                ))}
              </ul>
            )}
          </Fact>
        </dl>
      </Section>
    </div>
  );
}

/** The open devtools: a drawer along the bottom of the page, scrolling on its own. */
export function Panel({ client, diagnostics, panelId, onClose }: PanelProps) {
  const now = useNow();
  const state = diagnostics?.connectivity.state ?? 'online';
  return (
    <aside style={s.panel} aria-label="authbroker devtools" data-testid={ids.panel}>
      <header style={s.header}>
        <span role="img" aria-label={`network ${state}`} style={s.dot(s.stateColor[state])} />
        <span style={s.title}>authbroker devtools</span>
        <span style={s.chip}>
          session{' '}
          <b style={s.chipValue} data-testid={ids.session}>
            {diagnostics?.session.status ?? 'connecting'}
          </b>
        </span>
        <span style={s.chip}>
          renewals{' '}
          <b style={s.chipValue} data-testid={ids.renewals}>
            {diagnostics?.session.renewals ?? '–'}
          </b>
        </span>
        {diagnostics && <span style={s.chip}>{`recording since ${timeOfDay(diagnostics.recordingSinceMillis)}`}</span>}
        <button type="button" style={s.closeButton} onClick={onClose} aria-expanded={true} data-testid={ids.close}>
          Close
        </button>
      </header>
      <div style={s.body}>
        {diagnostics === undefined ? (
          <p style={s.note}>Waiting for the broker…</p>
        ) : (
          <>
            <Overview diagnostics={diagnostics} panelId={panelId} now={now} />
            <CacheTable client={client} diagnostics={diagnostics} panelId={panelId} now={now} />
            <PendingChangesTable client={client} now={now} />
            <RequestTable diagnostics={diagnostics} panelId={panelId} />
            <ConnectivityHistory diagnostics={diagnostics} />
          </>
        )}
      </div>
    </aside>
  );
}
