/**
 * The devtools' `data-testid` values, for an app's own end-to-end tests (and ours). Rows carry
 * their facts as `data-*` attributes too (see each section), so a test can find one by what it is.
 */
export const devtoolsIds = {
  toggle: 'authbroker-devtools-toggle',
  panel: 'authbroker-devtools-panel',
  close: 'authbroker-devtools-close',
  network: 'authbroker-devtools-network',
  session: 'authbroker-devtools-session',
  renewals: 'authbroker-devtools-renewals',
  mode: 'authbroker-devtools-mode',
  modeReason: 'authbroker-devtools-mode-reason',
  thisTab: 'authbroker-devtools-this-tab',
  tabRow: 'authbroker-devtools-tab-row',
  userId: 'authbroker-devtools-user-id',
  expiry: 'authbroker-devtools-expiry',
  endReason: 'authbroker-devtools-end-reason',
  endMessage: 'authbroker-devtools-end-message',
  cacheRow: 'authbroker-devtools-cache-row',
  refetch: 'authbroker-devtools-refetch',
  requestRow: 'authbroker-devtools-request-row',
  requestsDropped: 'authbroker-devtools-requests-dropped',
  /** Above the request log: since when it records, and why it may be empty. */
  recordingNote: 'authbroker-devtools-recording-note',
  connectivityChange: 'authbroker-devtools-connectivity-change',
  storage: 'authbroker-devtools-storage',
  warnings: 'authbroker-devtools-warnings',
  /** A write that waits out an outage, or was refused or dropped (`data-state`, `data-label`). */
  pendingRow: 'authbroker-devtools-pending-row',
} as const;
