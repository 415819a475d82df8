import { buildDemo } from '../../e2e/support/demoBuild.js';
import { engineAvailable } from './browsers.js';
import { ENGINE_NAMES } from './engine.js';

/** One demo build for the run (shared with the end-to-end suite); none when every engine will be skipped. */
export default function setup(): void {
  if (ENGINE_NAMES.some(engineAvailable)) buildDemo();
}
