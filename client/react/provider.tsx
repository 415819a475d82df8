import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { ClientError } from '../../protocol/errors/errors.js';
import type { BrokerClient } from '../brokerClient.js';
import { createBrokerClient } from '../pageClient.js';
import type { ConnectOptions } from '../connectOptions.js';

const ClientContext = createContext<BrokerClient | null>(null);

/** The props of {@link AuthProvider}: a client you made, or the options to make one. */
export type AuthProviderProps = { children?: ReactNode } & (
  { client: BrokerClient; options?: never } | { options: ConnectOptions; client?: never }
);

/**
 * Makes a broker client available to the hooks. Pass a client you created once at module level,
 * or options (a client is then created once per provider and closed when it unmounts).
 */
export function AuthProvider(props: AuthProviderProps) {
  const [owned] = useState(() => (props.client === undefined ? createBrokerClient(props.options) : null));
  const client = props.client ?? owned!;
  const closing = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    if (!owned) return undefined;
    // StrictMode unmounts and mounts again at once: only an unmount that stays closes the client
    // (closing it in between would start a second broker and leak the first).
    if (closing.current !== null) clearTimeout(closing.current);
    closing.current = null;
    return () => {
      closing.current = setTimeout(() => owned.close(), 0);
    };
  }, [owned]);
  return <ClientContext.Provider value={client}>{props.children}</ClientContext.Provider>;
}

/** The client of the nearest {@link AuthProvider}, to call actions (`signInWithPassword`, `signOut`…). */
export function useBrokerClient(): BrokerClient {
  const client = useContext(ClientContext);
  if (client === null)
    throw new ClientError('BROKER_UNAVAILABLE', 'Authbroker hooks need an <AuthProvider> above them.');
  return client;
}
