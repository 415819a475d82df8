import { useCallback, useSyncExternalStore } from 'react';
import type { PendingChange } from '../../contract/appRequests.js';
import type { BrokerClient } from '../brokerClient.js';
import { ago, errorText } from './format.js';
import { Section } from './parts.js';
import * as s from './styles.js';
import { devtoolsIds as ids } from './testIds.js';

const QUERY = { kind: 'pendingChanges' } as const;
const NONE: PendingChange[] = [];

/**
 * The writes that wait out an outage (`offlineWrites`), as every tab sees them: what, since when, where, and why one was
 * refused or dropped. Rows carry `data-state` and `data-label`.
 */
export function PendingChangesTable({ client, now }: { client: BrokerClient; now: number }) {
  const subscribe = useCallback((listener: () => void) => client.subscribe(QUERY, listener), [client]);
  const changes =
    useSyncExternalStore(subscribe, () => client.getSnapshot(QUERY)?.data as PendingChange[] | undefined) ?? NONE;
  return (
    <Section title={`Pending changes (${changes.length})`} wide>
      {changes.length === 0 ? (
        <p style={s.note}>Nothing waits: writes go out as they are made (or the app keeps none: offlineWrites).</p>
      ) : (
        <table style={s.table}>
          <thead>
            <tr>
              {['Change', 'State', 'Since', 'Sends', 'Why'].map((column) => (
                <th key={column} scope="col" style={s.th}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <tr key={change.id} data-testid={ids.pendingRow} data-state={change.state} data-label={change.label}>
                <td style={s.td}>{change.label}</td>
                <td style={s.td}>{change.state}</td>
                <td style={s.td}>{ago(change.createdAtMillis, now)}</td>
                <td style={s.td}>{change.attempts}</td>
                <td style={s.td} title={change.error?.message}>
                  {change.error === null
                    ? '–'
                    : errorText({
                        code: change.error.code,
                        status: 'status' in change.error ? change.error.status : null,
                      })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
