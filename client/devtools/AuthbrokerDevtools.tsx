import { lazy, Suspense, useEffect, useState } from 'react';
import type { BrokerClient } from '../brokerClient.js';
import { useBrokerClient } from '../react/provider.js';
import * as s from './styles.js';
import { devtoolsIds as ids } from './testIds.js';
import { useBrokerDiagnostics } from './useBrokerDiagnostics.js';

// The panel's code loads the first time it opens; the toggle is all a closed devtools costs.
const Panel = lazy(() => import('./Panel.js').then((module) => ({ default: module.Panel })));

const OPEN_KEY = 'authbroker-devtools:open';

/** The props of {@link AuthbrokerDevtools}. */
export interface AuthbrokerDevtoolsProps {
  /** The client to look at; default the one of the nearest `<AuthProvider>`. */
  client?: BrokerClient;
  /** Open on first load (afterwards the panel remembers whether it was open). Default false. */
  initialIsOpen?: boolean;
  /** Where the toggle sits. Default bottom-right. */
  position?: 'bottom-right' | 'bottom-left';
}

function readOpen(initial: boolean): boolean {
  try {
    const stored = localStorage.getItem(OPEN_KEY);
    return stored === null ? initial : stored === '1';
  } catch {
    return initial;
  }
}

function newPanelId(): string {
  return `panel-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * The broker at work, for development: a small toggle showing the session and the network, which
 * opens a panel with the host, the tabs, the session, the shared cache, the requests the broker
 * sent (with who caused them and how many callers each served) and connectivity over time. The
 * same picture in every tab (in the in-page mode each tab has its own broker, so its own picture).
 */
export function AuthbrokerDevtools(props: AuthbrokerDevtoolsProps) {
  return props.client === undefined ? <DevtoolsOfProvider {...props} /> : <Devtools {...props} client={props.client} />;
}

function DevtoolsOfProvider(props: AuthbrokerDevtoolsProps) {
  return <Devtools {...props} client={useBrokerClient()} />;
}

function Devtools({
  client,
  initialIsOpen = false,
  position = 'bottom-right',
}: AuthbrokerDevtoolsProps & { client: BrokerClient }) {
  const [panelId] = useState(newPanelId);
  const [open, setOpen] = useState(() => readOpen(initialIsOpen));
  // Watching turns the broker's recording on, so mounting the devtools (not opening them) starts the log. Only an
  // open panel names itself: the broker lists a tab as having its devtools open when one is.
  const diagnostics = useBrokerDiagnostics(client, open ? panelId : undefined);
  useEffect(() => {
    try {
      localStorage.setItem(OPEN_KEY, open ? '1' : '0');
    } catch {
      // Storage blocked: the panel just forgets.
    }
  }, [open]);

  const state = diagnostics?.connectivity.state ?? 'online';
  if (open) {
    return (
      <Suspense fallback={null}>
        <Panel client={client} diagnostics={diagnostics} panelId={panelId} onClose={() => setOpen(false)} />
      </Suspense>
    );
  }
  return (
    <button
      type="button"
      style={s.toggle(position)}
      aria-expanded={false}
      onClick={() => setOpen(true)}
      data-testid={ids.toggle}
      title="Open the authbroker devtools"
    >
      <span role="img" aria-label={`network ${state}`} style={s.dot(s.stateColor[state])} />
      authbroker
      <span style={s.chip}>
        <b style={s.chipValue} data-testid={ids.session}>
          {diagnostics?.session.status ?? 'connecting'}
        </b>
      </span>
      <span style={s.chip} title="Token renewals so far">
        renewals{' '}
        <b style={s.chipValue} data-testid={ids.renewals}>
          {diagnostics?.session.renewals ?? '–'}
        </b>
      </span>
    </button>
  );
}
