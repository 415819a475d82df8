// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerApi } from '../../contract/api.js';
import type { ExtensionApi } from '../../contract/webExtension.js';
import { MAX_CALLS_IN_FLIGHT } from '../../contract/wire.js';
import { callWindow } from '../../client/connect/callWindow.js';
import { openPort } from '../../client/extension/portCalls.js';
import { connectOverPort } from '../../client/connect/rpc.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
import { exposeBrokerEntry, type ConnectableBroker } from '../../worker/rpc/brokerEntry.js';
import { MAX_WAITING_PER_LANE } from '../../worker/rpc/fairness.js';

/**
 * A tab leaves at most MAX_CALLS_IN_FLIGHT calls unanswered on its port (issue 32, item 1): the
 * broker closes a port with more than MAX_WAITING_PER_LANE calls waiting their turn, as a page
 * flooding it, and a legitimate burst (a start-up subscribing to a thousand queries) must never
 * look like one.
 */
const opened: MessagePort[] = [];
afterEach(() => {
  for (const port of opened.splice(0)) port.close();
});

/** Every answer, or a failure naming what never came (a closed port answers nothing). */
function allWithin<T>(calls: Array<Promise<T>>, millis = 5000): Promise<T[]> {
  return Promise.race([
    Promise.all(calls),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`not every call was answered within ${millis} ms`)), millis),
    ),
  ]);
}

async function connectTo(methods: Record<string, (...args: never[]) => unknown>) {
  let released = false;
  const broker: ConnectableBroker = {
    connectWithConfig: (_config, _hello, _listener, onRelease) =>
      ({ ...methods, goodbye: async () => ((released = true), onRelease?.()) }) as unknown as BrokerApi,
  };
  const { port1, port2 } = new MessageChannel();
  opened.push(port1, port2);
  exposeBrokerEntry(async () => broker, port2);
  const connection = await connectOverPort(
    port1,
    { projectId: 'p' },
    { tabId: 'tab', version: 'test' },
    () => undefined,
    (promise) => promise,
    tabErrors,
  );
  return {
    api: connection.api as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>,
    released: () => released,
  };
}

describe("a tab's calls in flight", () => {
  it(`a thousand calls at once: the broker never holds more than ${MAX_CALLS_IN_FLIGHT} unanswered, and sees them in the order they were made`, async () => {
    let unanswered = 0;
    let most = 0;
    const seen: number[] = [];
    const { api } = await connectTo({
      status: async (n: number) => {
        seen.push(n);
        most = Math.max(most, ++unanswered);
        // Answered a little later, as a read that waits for the network is.
        await new Promise((resolve) => setTimeout(resolve, 1));
        unanswered -= 1;
        return n;
      },
    });
    const answers = await allWithin(Array.from({ length: 1000 }, (_, n) => api.status!(n)));
    expect(answers).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    expect(seen).toEqual(answers);
    expect(most).toBe(MAX_CALLS_IN_FLIGHT);
  });

  it('a start-up burst of a thousand calls on a busy broker is served in full: its port is never taken for a flood', async () => {
    // Each call holds the broker's thread for 0.1 ms: past the port's 10 ms budget, its calls wait
    // their turn in the broker. Without the window, about 900 would wait, over MAX_WAITING_PER_LANE.
    expect(MAX_WAITING_PER_LANE).toBe(2 * MAX_CALLS_IN_FLIGHT);
    expect(1000 - MAX_WAITING_PER_LANE).toBeGreaterThan(100);
    const { api, released } = await connectTo({
      status: (n: number) => {
        const until = performance.now() + 0.1;
        while (performance.now() < until);
        return n;
      },
    });
    const answers = await allWithin(Array.from({ length: 1000 }, (_, n) => api.status!(n)));
    expect(answers).toHaveLength(1000);
    expect(released()).toBe(false);
  });

  it('a call whose arguments do not clone fails with that error, whether it went at once or waited its turn; the others are answered', async () => {
    const { api } = await connectTo({
      status: async (n: unknown) => new Promise((resolve) => setTimeout(() => resolve(n), 1)),
    });
    const outcome = (n: number, arg: unknown) =>
      api.status!(arg).then(
        (value) => value,
        (error: Error) => `${n}: ${error.name}`,
      );
    // The first goes at once (Comlink gets the error as it posts); the second waits behind a full window.
    const calls = Array.from({ length: MAX_CALLS_IN_FLIGHT + 50 }, (_, n) =>
      outcome(n, n === 0 || n === MAX_CALLS_IN_FLIGHT + 10 ? () => n : n),
    );
    const results = await allWithin(calls);
    expect(results[0]).toBe('0: DataCloneError');
    expect(results[MAX_CALLS_IN_FLIGHT + 10]).toBe(`${MAX_CALLS_IN_FLIGHT + 10}: DataCloneError`);
    expect(results.filter((value) => typeof value === 'number')).toHaveLength(MAX_CALLS_IN_FLIGHT + 48);
  });

  it('the window: calls go in order as answers come back, an unknown answer frees nothing', () => {
    const sent: string[] = [];
    const window = callWindow(2);
    for (const id of ['a', 'b', 'c', 'd']) window.send(id, () => (sent.push(id), true));
    expect(sent).toEqual(['a', 'b']);
    window.answered('zzz');
    expect(sent).toEqual(['a', 'b']);
    window.answered('b');
    expect(sent).toEqual(['a', 'b', 'c']);
    // A call that could not be sent holds no place.
    window.send('e', () => false);
    window.send('f', () => (sent.push('f'), true));
    window.answered('a');
    window.answered('c');
    expect(sent).toEqual(['a', 'b', 'c', 'd', 'f']);
  });
});

describe("an extension context's calls in flight", () => {
  it(`at most ${MAX_CALLS_IN_FLIGHT} unanswered on the port to the background; the next go as answers come back`, async () => {
    const posted: Array<{ id: string }> = [];
    const onMessage: Array<(message: unknown) => void> = [];
    const port = {
      name: 'authbroker:page',
      postMessage: (message: { id: string }) => void posted.push(message),
      disconnect: () => undefined,
      onMessage: {
        addListener: (listener: (message: unknown) => void) => void onMessage.push(listener),
        removeListener: () => undefined,
      },
      onDisconnect: { addListener: () => undefined, removeListener: () => undefined },
    };
    const extension = {
      runtime: {
        id: 'x',
        getURL: (path: string) => path,
        connect: () => port,
        onConnect: { addListener: () => undefined, removeListener: () => undefined },
      },
    };
    const calls = openPort(extension as unknown as ExtensionApi, 'authbroker:page', () => undefined, tabErrors);
    const answers = Array.from({ length: 1000 }, () => calls.call('status', []));
    expect(posted).toHaveLength(MAX_CALLS_IN_FLIGHT);
    for (const { id } of posted.slice(0, 10))
      for (const listener of onMessage) listener({ id, type: 'RAW', value: id });
    expect(posted).toHaveLength(MAX_CALLS_IN_FLIGHT + 10);
    expect(await Promise.all(answers.slice(0, 10))).toEqual(posted.slice(0, 10).map(({ id }) => id));
    // Gone: those sent and those still waiting their turn fail alike, and nothing more goes out.
    const rest = Promise.allSettled(answers.slice(10));
    calls.close();
    expect(
      (await rest).map((outcome) => outcome.status === 'rejected' && (outcome.reason as { code?: string }).code),
    ).toEqual(Array(990).fill('BROKER_UNAVAILABLE'));
    expect(posted).toHaveLength(MAX_CALLS_IN_FLIGHT + 10);
  });
});
