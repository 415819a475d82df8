/**
 * `authbroker/react`: a provider and hooks over the broker. Values come from the broker's shared
 * cache through `useSyncExternalStore`, so every tab shows the same thing.
 *
 * @module authbroker/react
 */
export { AuthProvider, useBrokerClient, type AuthProviderProps } from './provider.js';
export {
  useQuery,
  useQuerySnapshot,
  useSuspenseQueries,
  useSuspenseQuery,
  type DataOfAll,
  type QueryState,
} from './query.js';
export * from './hooks.js';
export * from './user.js';
export { useCliLoginConfirmation } from './cliConfirmation.js';
export type { CliLoginConfirmationState } from './cliConfirmationChunk.js';
