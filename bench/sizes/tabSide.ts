/** Our whole tab side: every export of authbroker/client and authbroker/react (React external). */
export * from '../../client/index.js';
export * from '../../client/react/index.js';
