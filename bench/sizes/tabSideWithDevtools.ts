/**
 * The tab side plus `authbroker/devtools`, to measure what the devtools add (up front, and the panel loaded when
 * opened).
 */
export * from './tabSide.js';
export { AuthbrokerDevtools } from '../../client/devtools/index.js';
