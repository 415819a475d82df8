import type { CDPSession } from 'playwright-core';

/**
 * Commands to a SharedWorker target over the browser-level CDP session (Playwright has no handle on
 * SharedWorkers): attach without flattening, then wrap messages in Target.sendMessageToTarget.
 */
export class WorkerTarget {
  private nextId = 1;
  private pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private listeners = new Set<(method: string, params: Record<string, unknown>) => void>();

  private constructor(
    private readonly cdp: CDPSession,
    private readonly sessionId: string,
  ) {
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      if (event.sessionId !== this.sessionId) return;
      const message = JSON.parse(event.message) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: Record<string, unknown>;
      };
      if (message.id === undefined && message.method !== undefined) {
        for (const listener of this.listeners) listener(message.method, message.params ?? {});
        return;
      }
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    });
  }

  /** The first SharedWorker under `urlPrefix` (attaching keeps a worker alive: the others are left alone). */
  static async attach(cdp: CDPSession, urlPrefix: string): Promise<WorkerTarget> {
    const [first] = await sharedWorkersUnder(cdp, urlPrefix);
    return WorkerTarget.attachTo(cdp, first!.targetId);
  }

  /**
   * Every SharedWorker under `urlPrefix`. A tab whose first attempt to reach the broker was slow
   * (a loaded machine) starts a second instance (`name#2`), so one origin can have two; a test that
   * must cut the tab's broker off cannot know which one the tab kept.
   */
  static async attachAll(cdp: CDPSession, urlPrefix: string): Promise<WorkerTarget[]> {
    return Promise.all(
      (await sharedWorkersUnder(cdp, urlPrefix)).map((target) => WorkerTarget.attachTo(cdp, target.targetId)),
    );
  }

  private static async attachTo(cdp: CDPSession, targetId: string): Promise<WorkerTarget> {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: false });
    return new WorkerTarget(cdp, sessionId);
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      void this.cdp
        .send('Target.sendMessageToTarget', {
          sessionId: this.sessionId,
          message: JSON.stringify({ id, method, params }),
        })
        .catch(reject);
    });
  }

  /** The worker's CDP events (e.g. `Runtime.consoleAPICalled` after `Runtime.enable`). */
  onEvent(listener: (method: string, params: Record<string, unknown>) => void): void {
    this.listeners.add(listener);
  }

  offEvent(listener: (method: string, params: Record<string, unknown>) => void): void {
    this.listeners.delete(listener);
  }

  /** Takes the worker's network down or up (Network.enable first, or it silently does nothing). */
  async setOffline(offline: boolean): Promise<void> {
    await this.send('Network.enable');
    await this.send('Network.emulateNetworkConditions', {
      offline,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
  }
}

async function sharedWorkersUnder(cdp: CDPSession, urlPrefix: string): Promise<Array<{ targetId: string }>> {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const targets = targetInfos.filter((t) => t.type === 'shared_worker' && t.url.startsWith(urlPrefix));
  if (targets.length === 0) throw new Error(`No shared_worker target under ${urlPrefix}`);
  return targets;
}
