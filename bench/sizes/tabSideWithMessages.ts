/** The tab side plus the opt-in sentences entry, to measure what `authbroker/messages` adds. */
export * from './tabSide.js';
export { describeError } from '../../client/messages.js';
