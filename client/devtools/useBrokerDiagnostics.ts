import { useCallback, useMemo, useSyncExternalStore } from 'react';
import type { BrokerDiagnostics } from '../../contract/queries.js';
import type { BrokerClient } from '../brokerClient.js';

const serverSnapshot = () => undefined;

/**
 * The broker's diagnostics, kept up to date by the broker (pushed on change, never polled), through
 * the client's public `subscribe`/`getSnapshot`. `panel` names an open panel, so that it can find its
 * own tab in `diagnostics.tabs` (and the broker lists that tab as having its devtools open); a closed
 * devtools watches without one. Undefined until the broker first answers.
 */
export function useBrokerDiagnostics(client: BrokerClient, panel?: string): BrokerDiagnostics | undefined {
  const query = useMemo(() => ({ kind: 'diagnostics' as const, ...(panel === undefined ? {} : { panel }) }), [panel]);
  const subscribe = useCallback((listener: () => void) => client.subscribe(query, listener), [client, query]);
  const getSnapshot = useCallback(() => client.getSnapshot(query), [client, query]);
  return useSyncExternalStore(subscribe, getSnapshot, serverSnapshot)?.data as BrokerDiagnostics | undefined;
}

/** The number of the tab a panel runs in (null until the broker lists it). */
export function tabOfPanel(diagnostics: BrokerDiagnostics, panel: string): number | null {
  return diagnostics.tabs.find((tab) => tab.panels.includes(panel))?.tab ?? null;
}
