import { STATE_VERSION, type EmulatorState, type ProjectRecord } from './model.js';

/**
 * Holds the state and tells the persistence layer when it changed.
 *
 * Consistency rule for every handler: do all awaiting (hashing, signing, verifying) first, then
 * re-check and mutate in one synchronous block, then call `changed()`. Node runs that block
 * without interruption, so concurrent requests on the same user or team cannot interleave.
 */
export class Store {
  private listeners: Array<() => void> = [];
  constructor(public state: EmulatorState) {}

  static empty(): Store {
    return new Store({ format: 'authbroker-emulator', version: STATE_VERSION, projects: {} });
  }

  project(id: string): ProjectRecord | undefined {
    return Object.hasOwn(this.state.projects, id) ? this.state.projects[id] : undefined;
  }

  projects(): ProjectRecord[] {
    return Object.values(this.state.projects);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Call after a mutation; persistence saves the snapshot. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** Own-property lookup, so ids like `__proto__` or `constructor` never reach the prototype. */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
