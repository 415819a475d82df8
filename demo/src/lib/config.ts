import type { DemoConfig } from '../client.js';

/** The demo's configuration (from /demo-config.json), set once at start-up by main.tsx. */
let current: DemoConfig | null = null;

export function setDemoConfig(config: DemoConfig): void {
  current = config;
}

export function demoConfig(): DemoConfig {
  if (current === null) throw new Error('The demo configuration is not loaded yet.');
  return current;
}

/** The emulator's mailbox page (every e-mail the service "sends" lands there), or null for a real service. */
export function mailboxUrl(to?: string): string | null {
  const base = current?.baseUrl.replace(/\/+$/, '');
  if (base === undefined || !/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(base)) return null;
  return `${base}/emulator${to === undefined ? '' : `?to=${encodeURIComponent(to)}`}`;
}
