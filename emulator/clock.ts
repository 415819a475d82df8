/**
 * The emulator's time. Tests move it forward (`POST /emulator/time`) to expire codes and tokens
 * without waiting; everything time-dependent in the emulator reads it from here.
 */
export class EmulatorClock {
  private offsetMillis = 0;
  now(): number {
    return Date.now() + this.offsetMillis;
  }
  advance(millis: number): void {
    this.offsetMillis += millis;
  }
  get offset(): number {
    return this.offsetMillis;
  }
}
