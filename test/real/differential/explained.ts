import type { Explanation } from './compare.js';

/**
 * The differences between the emulator and the real backend that stay, each with why. Every reason
 * here is also in emulator/README.md ("Where it differs from the service"); a difference that
 * matches none fails the differential check.
 */
export const EXPLANATIONS: readonly Explanation[] = [];
