/**
 * `authbroker/devtools`: see the broker at work in any app, during development. Its own entry, so
 * that apps which do not import it carry none of it; the panel itself loads when first opened.
 *
 *   <AuthProvider client={client}>
 *     <App />
 *     <AuthbrokerDevtools />
 *   </AuthProvider>
 *
 * @module authbroker/devtools
 */
export { AuthbrokerDevtools, type AuthbrokerDevtoolsProps } from './AuthbrokerDevtools.js';
export { useBrokerDiagnostics } from './useBrokerDiagnostics.js';
export { devtoolsIds } from './testIds.js';
export type * from '../../contract/diagnostics.js';
export type { BrokerDiagnostics, CacheEntryDiagnostics } from '../../contract/queries.js';
