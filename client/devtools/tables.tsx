import { useState } from 'react';
import type { RequestCause, RequestRecord } from '../../contract/diagnostics.js';
import type { BrokerDiagnostics, CacheEntryDiagnostics } from '../../contract/queries.js';
import type { BrokerClient } from '../brokerClient.js';
import { ago, describeQuery, duration, errorText, timeOfDay } from './format.js';
import { Section } from './parts.js';
import * as s from './styles.js';
import { devtoolsIds as ids } from './testIds.js';
import { tabOfPanel } from './useBrokerDiagnostics.js';

function Head({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col" style={s.th}>
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

function entryState(entry: CacheEntryDiagnostics): string {
  if (entry.isFetching) return 'fetching';
  if (entry.status === 'error') return 'error';
  if (entry.invalidated) return 'stale';
  return entry.status === 'success' ? 'fresh' : 'pending';
}

function tabName(tab: number | null, thisTab: number | null): string {
  if (tab === null) return 'broker';
  return tab === thisTab ? 'this tab' : `tab ${tab}`;
}

function causeText(cause: RequestCause, thisTab: number | null): string {
  return `${tabName(cause.tab, thisTab)} · ${cause.via} ${cause.name}`;
}

function attemptsText(record: RequestRecord): string {
  return record.attempts
    .map(
      (attempt) =>
        `${attempt.status ?? 'no answer'}${attempt.retry ? ` → ${attempt.retry.reason}, ${duration(attempt.retry.delayMillis)}` : ''}`,
    )
    .join('; ');
}

function RefetchButton({ client, entry }: { client: BrokerClient; entry: CacheEntryDiagnostics }) {
  const [busy, setBusy] = useState(false);
  // Only the current session's service data can be asked for again; the broker pushes its own values.
  if (!entry.current || entry.scope === 'broker') return null;
  return (
    <button
      type="button"
      style={s.button}
      disabled={busy}
      data-testid={ids.refetch}
      onClick={() => {
        setBusy(true);
        client
          .refetch(entry.query)
          .catch(() => undefined)
          .finally(() => setBusy(false));
      }}
    >
      {busy ? 'Refetching…' : 'Refetch'}
    </button>
  );
}

export function CacheTable({
  client,
  diagnostics,
  panelId,
  now,
}: {
  client: BrokerClient;
  diagnostics: BrokerDiagnostics;
  panelId: string;
  now: number;
}) {
  const thisTab = tabOfPanel(diagnostics, panelId);
  return (
    <Section title={`Shared cache (${diagnostics.cache.length})`} wide>
      <table style={s.table}>
        <Head columns={['query', 'scope', 'watched by', 'state', 'age', 'last error', '']} />
        <tbody>
          {diagnostics.cache.map((entry) => (
            <tr
              key={`${entry.scope}:${entry.key}:${entry.current}`}
              data-testid={ids.cacheRow}
              data-key={entry.key}
              data-kind={entry.query.kind}
              data-current={entry.current}
              data-tabs={entry.tabs.length}
              data-subscribers={entry.subscribers}
            >
              <td style={s.td}>{describeQuery(entry.query)}</td>
              <td style={s.td}>{entry.current ? entry.scope : `${entry.scope} (previous session)`}</td>
              <td
                style={s.td}
              >{`${entry.tabs.length} tab${entry.tabs.length === 1 ? '' : 's'}${entry.tabs.length > 0 ? ` (${entry.tabs.map((tab) => tabName(tab, thisTab)).join(', ')})` : ''}`}</td>
              <td style={s.td}>{entryState(entry)}</td>
              <td style={s.td}>{entry.updatedAtMillis === 0 ? '–' : ago(entry.updatedAtMillis, now)}</td>
              <td style={s.td}>
                {entry.lastError === null ? '–' : `${errorText(entry.lastError)} ${ago(entry.lastError.atMillis, now)}`}
              </td>
              <td style={s.td}>
                <RefetchButton client={client} entry={entry} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/**
 * When the log begins, said where the log is: a broker records from the moment the devtools (open
 * or closed) first mount in any tab, so after a navigation that restarted the broker, what the page shows may
 * have been fetched before then, and an empty log does not mean "no requests".
 */
function RecordingNote({ diagnostics }: { diagnostics: BrokerDiagnostics }) {
  const since = diagnostics.recordingSinceMillis;
  const before = `Recording since ${timeOfDay(since)}, when authbroker's devtools were first shown in a tab of this broker (it started at ${timeOfDay(diagnostics.host.startedAtMillis)}); requests made before then are not listed.`;
  const empty =
    diagnostics.requests.length === 0
      ? ' None since: what tabs show was fetched before recording began, or comes from the cache or the copy kept between visits.'
      : '';
  return (
    <p style={s.note} data-testid={ids.recordingNote}>
      {before + empty}
    </p>
  );
}

export function RequestTable({ diagnostics, panelId }: { diagnostics: BrokerDiagnostics; panelId: string }) {
  const thisTab = tabOfPanel(diagnostics, panelId);
  const newestFirst = [...diagnostics.requests].reverse();
  return (
    <Section title={`Requests (${diagnostics.requests.length})`} wide>
      <RecordingNote diagnostics={diagnostics} />
      <table style={s.table}>
        <Head columns={['#', 'at', 'request', 'status', 'time', 'attempts', 'error', 'caused by', 'callers']} />
        <tbody>
          {newestFirst.map((record) => (
            <tr
              key={record.id}
              data-testid={ids.requestRow}
              data-id={record.id}
              data-method={record.method}
              data-path={record.path}
              data-status={record.status ?? ''}
              data-outcome={record.outcome}
              data-callers={record.callers}
              data-tab={record.cause.tab ?? 'broker'}
              data-via={record.cause.via}
            >
              <td style={s.td}>{record.id}</td>
              <td style={s.td}>{timeOfDay(record.startedAtMillis)}</td>
              <td style={s.td}>{`${record.method} ${record.path}`}</td>
              <td style={{ ...s.td, color: s.outcomeColor[record.outcome] }}>
                {record.status ?? (record.outcome === 'pending' ? '…' : '–')}
              </td>
              <td style={s.td}>{record.durationMillis === null ? '…' : duration(record.durationMillis)}</td>
              <td style={s.td}>{attemptsText(record) || '–'}</td>
              <td style={s.td}>{record.code ?? '–'}</td>
              <td style={s.td}>{causeText(record.cause, thisTab)}</td>
              <td style={s.td}>{record.callers}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {diagnostics.requestsDropped > 0 && (
        <p style={s.note} data-testid={ids.requestsDropped}>
          {`${diagnostics.requestsDropped} older request${diagnostics.requestsDropped === 1 ? '' : 's'} dropped (the log keeps the latest ${diagnostics.requests.length}).`}
        </p>
      )}
    </Section>
  );
}

export function ConnectivityHistory({ diagnostics }: { diagnostics: BrokerDiagnostics }) {
  const newestFirst = [...diagnostics.connectivityHistory].reverse();
  const probe = (p: { status: number | null; reachable: boolean; error: string | null; elapsedMillis: number }) =>
    p.reachable ? `${p.status} in ${duration(p.elapsedMillis)}` : `unreachable (${p.error ?? 'no answer'})`;
  return (
    <Section title="Connectivity over time" wide>
      <table style={s.table}>
        <Head columns={['at', 'state', 'browser', 'failures', 'error', 'API probe', 'health probe']} />
        <tbody>
          {newestFirst.map((change, index) => (
            <tr key={`${change.atMillis}-${index}`} data-testid={ids.connectivityChange} data-state={change.state}>
              <td style={s.td}>{timeOfDay(change.atMillis)}</td>
              <td style={{ ...s.td, color: s.stateColor[change.state] }}>{change.state}</td>
              <td style={s.td}>
                {change.browserOnline === null ? 'unknown' : change.browserOnline ? 'online' : 'offline'}
              </td>
              <td style={s.td}>{change.consecutiveFailures}</td>
              <td style={s.td}>{change.lastError === null ? '–' : errorText(change.lastError)}</td>
              <td style={s.td}>{change.diagnostics ? probe(change.diagnostics.apiRoot) : '–'}</td>
              <td style={s.td}>{change.diagnostics ? probe(change.diagnostics.health) : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
