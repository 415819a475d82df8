import { chromiumAvailable } from './chromium.js';
import { buildDemo } from './demoBuild.js';

/** One demo build for the whole end-to-end run (skipped when the suite will be skipped). */
export default function setup(): void {
  if (chromiumAvailable) buildDemo();
}
