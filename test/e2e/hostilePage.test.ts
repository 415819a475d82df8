import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import {
  appAndHostilePage,
  brokerScriptUrl,
  installHostileKit,
  refused,
  startReading,
  type Payload,
  type Reply,
} from './support/hostile.js';
import { DEMO, T, until, waitForSignedIn } from './support/ui.js';
import { WorkerTarget } from './support/workerCdp.js';
import { MAX_WAITING_PER_LANE } from '../../worker/rpc/fairness.js';

/**
 * A hostile page on the app's origin opens its own port to the broker's SharedWorker and speaks
 * Comlink's wire format by hand: every message that is not a call of a named API method is refused
 * with INVALID_ARGUMENT, nothing runs or changes in the broker, and the app's own tab carries on.
 */
describe('a hostile page on the same origin', () => {
  scenario(
    'Comlink GET / SET / CONSTRUCT, nested and inherited paths and prototype keys are refused; the broker and the app are untouched',
    async (stage) => {
      const context = await stage.newContext();
      const app = await stage.openTab(context);
      await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      const session = await stage.cdp();
      const { targetInfos } = await session.send('Target.getTargets');
      const workerUrl = targetInfos.find((t) => t.type === 'shared_worker' && t.url.startsWith(stage.demo.url))!.url;

      const hostile = await stage.openTab(context, '/');
      const replies = await hostile.evaluate(async (url) => {
        const config = (await (await fetch('/demo-config.json')).json()) as { baseUrl: string; projectId: string };
        const name = `authbroker:${config.projectId}@${config.baseUrl.replace(/\/+$/, '')}`;
        const worker = new SharedWorker(url, { type: 'module', name });
        const ask = (port: MessagePort, message: Record<string, unknown>, transfer: Transferable[] = []) =>
          new Promise<unknown>((resolve) => {
            const id = crypto.randomUUID();
            const onMessage = (event: MessageEvent) => {
              if ((event.data as { id?: string })?.id !== id) return;
              port.removeEventListener('message', onMessage);
              resolve(event.data);
            };
            port.addEventListener('message', onMessage);
            port.start();
            port.postMessage({ ...message, id }, transfer);
            setTimeout(() => resolve('no answer'), 3000);
          });
        const raw = (value: unknown) => ({ type: 'RAW', value });
        const entry: Record<string, unknown> = {
          getConstructor: await ask(worker.port, { type: 'GET', path: ['constructor', 'constructor'] }),
          runCode: await ask(worker.port, {
            type: 'APPLY',
            path: ['constructor', 'constructor'],
            argumentList: [raw('return self')],
          }),
          construct: await ask(worker.port, { type: 'CONSTRUCT', path: ['connect'], argumentList: [] }),
        };
        // A legitimate connect gives this page its own API port, the surface a hostile page can reach.
        const { port1: listener, port2: brokerSide } = new MessageChannel();
        const connected = (await ask(
          worker.port,
          {
            type: 'APPLY',
            path: ['connect'],
            argumentList: [raw(config), raw({ tabId: 'hostile', version: '' }), raw(brokerSide)],
          },
          [brokerSide],
        )) as {
          value: MessagePort;
        };
        const api = connected.value;
        const polluting = JSON.parse(
          '{"email":"x@example.com","password":"pw-123456","__proto__":{"polluted":true}}',
        ) as unknown;
        const onApi: Record<string, unknown> = {
          get: await ask(api, { type: 'GET', path: ['getAccessToken'] }),
          set: await ask(api, { type: 'SET', path: ['__proto__', 'polluted'], value: raw(true) }),
          construct: await ask(api, { type: 'CONSTRUCT', path: ['signOut'], argumentList: [] }),
          nested: await ask(api, { type: 'APPLY', path: ['signOut', 'call'], argumentList: [] }),
          inherited: await ask(api, { type: 'APPLY', path: ['toString'], argumentList: [] }),
          prototype: await ask(api, { type: 'APPLY', path: ['__proto__'], argumentList: [] }),
          endpoint: await ask(api, { type: 'ENDPOINT' }),
          proxyArgument: await ask(api, {
            type: 'APPLY',
            path: ['signInWithPassword'],
            argumentList: [{ type: 'HANDLER', name: 'proxy', value: null }],
          }),
          prototypeKeys: await ask(api, {
            type: 'APPLY',
            path: ['signInWithPassword'],
            argumentList: [raw(polluting)],
          }),
        };
        listener.close();
        return { entry, onApi };
      }, workerUrl);

      const refused = (reply: unknown) =>
        (reply as Reply).type === 'HANDLER' &&
        (reply as Reply).name === 'throw' &&
        (reply as Reply).value?.authbroker?.code === 'INVALID_ARGUMENT';
      for (const [what, reply] of [...Object.entries(replies.entry), ...Object.entries(replies.onApi)])
        expect(refused(reply), `${what}: ${JSON.stringify(reply)}`).toBe(true);

      // Nothing leaked into the broker's prototypes, and the app's own tab is still signed in and served.
      const worker = await WorkerTarget.attach(session, stage.demo.url);
      const polluted = await worker.send<{ result: { value: unknown } }>('Runtime.evaluate', {
        expression: '({}).polluted === undefined && Object.prototype.polluted === undefined',
        returnByValue: true,
      });
      expect(polluted.result.value).toBe(true);
      expect(await app.evaluate(() => window.__authbroker.getAccessToken())).toMatch(/^ey/);
      expect((await app.evaluate(() => window.__authbroker.status())).session).toMatchObject({ status: 'signed-in' });
    },
  );
});

/**
 * What one page does to the broker, every tab feels: these are the moves of a hostile page of the
 * app's origin against the one broker all its tabs share (issue 27), and what the app's tabs see.
 */
describe('a hostile page cannot hurt the other tabs through the shared broker', () => {
  scenario(
    "one message cannot hold the broker: its worst calls are refused while the app's cached reads go on",
    async (stage) => {
      const { app, hostile } = await appAndHostilePage(stage);
      const own = await hostile.evaluate(() => window.__hostile.connect({}));

      await startReading(app);
      const calls: Array<[string, Payload]> = [
        ['status', 'sharedTwice'],
        ['getAccessToken', 'sharedTwice'],
        ['updateUser', 'metadataSharedTwice'],
        ['updateUser', 'fiveMillion'],
        ['updateUser', 'millionKeys'],
        ['updateUser', 'megabyteStrings'],
      ];
      const replies: Array<[string, Reply | 'no answer', number, number]> = [];
      for (const [method, payload] of calls) {
        const started = Date.now();
        replies.push([
          `${method}(${payload})`,
          await hostile.evaluate(([index, m, p]) => window.__hostile.call(index, m, p, 20_000), [
            own,
            method,
            payload,
          ] as const),
          started,
          Date.now(),
        ]);
      }
      const { delays, failures, reads } = await app.evaluate(() => window.__reads.stop());
      for (const [what, reply] of replies) expect(refused(reply), `${what}: ${JSON.stringify(reply)}`).toBe(true);
      expect(failures).toBe(0);
      const figures = replies.map(([what, , from, to]) => {
        // A read held across two calls counts in both.
        const during = reads.filter(([at, ms]) => at + ms >= from && at <= to).map(([, ms]) => ms);
        return { what, millis: to - from, reads: during.length, maxDelay: Math.max(0, ...during) };
      });
      console.log(
        `[hostile page] the app's cached reads while each call was answered (${delays.length} reads in all):\n${figures.map((f) => `  ${f.what}: answered in ${f.millis} ms; ${f.reads} reads, the slowest ${f.maxDelay.toFixed(1)} ms`).join('\n')}`,
      );
      // Sent small (61 objects once cloned), refused after bounded work: before, one of these left the
      // app's reads unanswered for more than 30 s (2^60 steps). The large messages cost the browser's
      // clone on the broker's thread before any broker code runs; their figures are reported above.
      for (const f of figures.slice(0, 3)) expect(f.maxDelay, f.what).toBeLessThan(1000);
      for (const f of figures) expect(f.reads, f.what).toBeGreaterThan(0);
      expect(await app.evaluate(() => window.__authbroker.getAccessToken())).toMatch(/^ey/);
    },
  );

  scenario(
    "a flood spread over 400 ports (250 calls each, none over a port's cap) does not hold another tab's reads: what the broker cannot keep up with is shed (issue 39, item 2)",
    async (stage) => {
      const { app, hostile } = await appAndHostilePage(stage);
      await hostile.evaluate(
        () =>
          new Promise<void>(
            (held) => void navigator.locks.request('hostile-life', () => (held(), new Promise(() => undefined))),
          ),
      );
      await startReading(app, 5);
      const PORTS = 400;
      const PER_PORT = 250;
      const { postingAt, postedAt, refused } = await hostile.evaluate(
        ([ports, perPort]) => window.__hostile.floodPorts(ports!, perPort!, 'status'),
        [PORTS, PER_PORT],
      );
      const answeredAt = await hostile.evaluate(() => window.__hostile.floodAnswered(3000));
      const { failures, reads } = await app.evaluate(() => window.__reads.stop());
      const floodEnd = Math.max(answeredAt.at(-1) ?? 0, postedAt);
      const during = reads.filter(([at, ms]) => at + ms >= postingAt && at <= floodEnd);
      const floodDuring = ([at, ms]: [number, number]) =>
        answeredAt.filter((answered) => answered >= at && answered <= at + ms).length;
      const slowest = during.reduce((worst, read) => (read[1] > worst[1] ? read : worst), [0, 0] as [number, number]);
      console.log(
        `[hostile page] ${PORTS} ports × ${PER_PORT} status() calls posted in ${(postedAt - postingAt).toFixed(0)} ms: ${answeredAt.length} answered; ${during.length} reads of the app meanwhile, the slowest ${slowest[1].toFixed(1)} ms (${floodDuring(slowest)} of the flood answered while it waited)`,
      );
      expect(refused).toBe(0);
      expect(failures).toBe(0);
      expect(during.length).toBeGreaterThan(5);
      // Before: every one of the 100,000 was answered ahead of the app (each port within its own budget, none over its
      // cap), and the app's read waited 1.9–2.6 s behind them. How much of the flood is answered depends on how fast
      // the machine is (the ports are closed only while the thread is pressed: 76,000–92,000 of 100,000 answered in our runs); what
      // must hold is that the app's read does not wait behind it.
      expect(slowest[1]).toBeLessThan(1000);
      expect(floodDuring(slowest)).toBeLessThan(4000);
      expect(await app.evaluate(() => window.__authbroker.getAccessToken())).toMatch(/^ey/);
    },
  );

  scenario(
    "a flood of cheap valid calls on one port is served in that port's turn, and closed once it outruns the broker: another tab's reads go on (issue 32, item 1)",
    async (stage) => {
      const { app, hostile } = await appAndHostilePage(stage);
      // The page's own client connected too: what the app sees before the flooding connection.
      await hostile.evaluate(() => window.__authbroker.status());
      const before = await app.evaluate(() => window.__authbroker.status());
      // A connection that names a lock its page holds, as a tab does: it stays while the page does.
      const own = await hostile.evaluate(async () => {
        await new Promise<void>(
          (held) => void navigator.locks.request('hostile-life', () => (held(), new Promise(() => undefined))),
        );
        return window.__hostile.connect({ lockName: 'hostile-life' });
      });

      // The app reads every few ms, as a page does now and then (back to back, its reads would be a flood of their
      // own).
      await startReading(app, 5);
      const FLOOD = 100_000;
      const { postingAt, postedAt } = await hostile.evaluate(
        ([index, count]) => window.__hostile.flood(index, 'status', count),
        [own, FLOOD] as const,
      );
      const answeredAt = await hostile.evaluate(() => window.__hostile.floodAnswered(3000));
      const { failures, reads } = await app.evaluate(() => window.__reads.stop());
      expect(failures).toBe(0);
      const floodEnd = answeredAt.at(-1)!;
      const during = reads.filter(([at, ms]) => at + ms >= postingAt && at <= floodEnd);
      const floodDuring = ([at, ms]: [number, number]) =>
        answeredAt.filter((answered) => answered >= at && answered <= at + ms).length;
      const slowest = during.reduce((worst, read) => (read[1] > worst[1] ? read : worst), [0, 0] as [number, number]);
      console.log(
        `[hostile page] ${FLOOD} status() calls posted in ${(postedAt - postingAt).toFixed(0)} ms: ${answeredAt.length} answered, in ${(floodEnd - postingAt).toFixed(0)} ms, before the broker closed the port; ${during.length} reads of the app meanwhile, the slowest ${slowest[1].toFixed(1)} ms (${floodDuring(slowest)} of the flood answered while it waited)`,
      );
      // Served in its turn until more calls waited than a tab ever has, then closed (before: all of
      // them answered in arrival order, while other tabs' reads waited behind tens of thousands).
      expect(answeredAt.length).toBeGreaterThan(0);
      expect(answeredAt.length).toBeLessThan(FLOOD);
      expect(Math.max(0, ...during.map(floodDuring))).toBeLessThan(MAX_WAITING_PER_LANE);
      expect(during.length).toBeGreaterThan(5);
      // The flooding connection is gone; the app is served.
      await expect
        .poll(async () => (await app.evaluate(() => window.__authbroker.status())).tabsConnected, { timeout: 10_000 })
        .toBe(before.tabsConnected);
      expect(await app.evaluate(() => window.__authbroker.getAccessToken())).toMatch(/^ey/);
    },
  );

  scenario(
    "no page can disconnect another page's tab or its broker: tab ids and lock names are no identities",
    async (stage) => {
      const context = await stage.newContext();
      const app = await stage.openTab(context);
      const other = await stage.openTab(context);
      await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await waitForSignedIn(app, DEMO.email);
      const before = await app.evaluate(() => window.__authbroker.status());
      const hostile = await stage.openTab(context, '/');
      await installHostileKit(hostile, await brokerScriptUrl(stage));

      // Every page of the origin sees the lock names, and can take any held lock and let it go. (A tab
      // takes its lock when it connects, after its first frame: the hostile page's own may come a little later.)
      const heldLocks = () =>
        hostile.evaluate(async () => ((await navigator.locks.query()).held ?? []).map((lock) => lock.name!));
      await expect
        .poll(async () => (await heldLocks()).filter((name) => name.startsWith('authbroker:tab:')).length, {
          timeout: 10_000,
        })
        .toBeGreaterThanOrEqual(3);
      const held = await heldLocks();
      const tabLocks = held.filter((name) => name.startsWith('authbroker:tab:'));
      const brokerLock = held.find((name) => name.startsWith('authbroker:broker:'))!;
      const served = () =>
        app.evaluate(() =>
          Promise.race([
            window.__authbroker.status(),
            new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 1000)),
          ]),
        );

      // A connection that gives another tab's id and lock is a new tab: the app's tab is still served.
      await hostile.evaluate(async (names) => {
        for (const name of names)
          await window.__hostile.connect({ tabId: name.slice('authbroker:tab:'.length), lockName: name });
      }, tabLocks);
      const connected = await served();
      expect(connected).toMatchObject({
        brokerId: before.brokerId,
        session: { status: 'signed-in' },
        tabsConnected: before.tabsConnected + 1 + tabLocks.length,
      });

      // Every tab's lock taken and let go: the broker asks each tab, which answers and takes a fresh lock.
      await hostile.evaluate(async (names) => {
        for (const name of names) await navigator.locks.request(name, { steal: true }, () => undefined);
      }, tabLocks);
      await until(
        'each tab to hold a fresh lock',
        () => app.evaluate(async () => ((await navigator.locks.query()).held ?? []).map((lock) => lock.name!)),
        (names) => names.filter((name) => /^authbroker:tab:.*:1$/.test(name)).length === tabLocks.length,
      );
      expect(await served()).toMatchObject({
        brokerId: before.brokerId,
        tabsConnected: (connected as { tabsConnected: number }).tabsConnected,
      });

      // The broker's lock taken and let go: every tab asks the broker, which answers with a fresh lock,
      // and goes on with it (before, each tab gave the broker up for lost and connected again).
      await hostile.evaluate((name) => navigator.locks.request(name, { steal: true }, () => undefined), brokerLock);
      await until(
        "every tab to watch the broker's fresh lock",
        () =>
          app.evaluate(
            async () =>
              (await navigator.locks.query()) as {
                held?: Array<{ name?: string }>;
                pending?: Array<{ name?: string }>;
              },
          ),
        ({ held, pending }) =>
          (held ?? []).some((lock) => lock.name === `${brokerLock}:1`) &&
          (pending ?? []).filter((lock) => lock.name === `${brokerLock}:1`).length === 3,
      );
      expect(await served()).toMatchObject({
        brokerId: before.brokerId,
        tabsConnected: (connected as { tabsConnected: number }).tabsConnected,
      });
      // …and what happens in another tab reaches it at once (before: it showed the user seconds after a sign-out).
      await other.evaluate(() => window.__authbroker.signOut());
      await app.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`) === null, T.currentUserEmail, {
        timeout: 2000,
      });
      expect((await app.evaluate(() => window.__authbroker.status())).brokerId).toBe(before.brokerId);
    },
  );

  scenario(
    'a tab too busy to answer when another page takes its lock is let go, and connects again once it can',
    async (stage) => {
      const context = await stage.newContext();
      const app = await stage.openTab(context);
      await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      const before = await app.evaluate(() => window.__authbroker.status());
      // A page of the origin without the app: the only tab locks are the app's.
      const hostile = await context.newPage();
      await hostile.goto(`${stage.demo.url}/demo-config.json`);
      const appLocks = await hostile.evaluate(async () =>
        ((await navigator.locks.query()).held ?? [])
          .map((lock) => lock.name!)
          .filter((name) => name.startsWith('authbroker:tab:')),
      );
      expect(appLocks.length).toBe(1);
      // The app's thread is busy for longer than the broker waits for an answer (5 s) while its lock is taken.
      const busy = app.evaluate(() => {
        const until = Date.now() + 6500;
        while (Date.now() < until);
      });
      await hostile.evaluate(
        (names) => Promise.all(names.map((name) => navigator.locks.request(name, { steal: true }, () => undefined))),
        appLocks,
      );
      await busy;
      // Once it runs again it names a fresh lock, gets no answer (the broker let it go) and connects again.
      const after = await until(
        'the app tab to be served again',
        () =>
          app.evaluate(() =>
            Promise.race([
              window.__authbroker.status(),
              new Promise<null>((resolve) => setTimeout(() => resolve(null), 500)),
            ]),
          ),
        (status) => status !== null && status.session.status === 'signed-in',
        10_000,
      );
      expect(after!.brokerId).toBe(before.brokerId);
      expect(await app.evaluate(() => window.__authbroker.getAccessToken())).toMatch(/^ey/);
    },
  );

  scenario(
    "the brokers' channel takes hints, not facts: a page's forged data and session end reach no tab",
    async (stage) => {
      const context = await stage.newContext();
      const app = await stage.openTab(context);
      await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await waitForSignedIn(app, DEMO.email);
      // Everything the app shows from now on, and what it keeps for the next tab, is watched for the page's words.
      await app.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { __seen: string[] }).__seen = seen;
        new MutationObserver(() => {
          const text = document.body.textContent ?? '';
          if (/Forged|555/.test(text)) seen.push(text.slice(0, 200));
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      const hostile = await stage.openTab(context, '/');
      await installHostileKit(hostile, await brokerScriptUrl(stage));
      const counts = () => {
        const { requests, token_refreshes } = stage.emulator.env.stats.snapshot();
        return { userReads: requests['GET /users/me']?.['200'] ?? 0, tokenRequests: token_refreshes };
      };
      const before = counts();
      await hostile.evaluate(async () => {
        // The session's key is no secret to the origin (IndexedDB); the channel's name is the worker's.
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const request = indexedDB.open('authbroker');
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        const records = await new Promise<Array<{ sessionKey: string; slot: string }>>((resolve) => {
          const request = db.transaction('sessions').objectStore('sessions').getAll();
          request.onsuccess = () => resolve(request.result as Array<{ sessionKey: string; slot: string }>);
        });
        const { sessionKey, slot } = records.find((r) => !r.slot.startsWith('admin:'))!;
        const user = await window.__authbroker.read({ kind: 'currentUser' });
        const channel = new BroadcastChannel(window.__hostile.workerName);
        channel.postMessage({
          type: 'cache-set',
          owner: `user:${sessionKey}`,
          spec: { kind: 'currentUser' },
          value: { ...user, displayName: 'Forged name', primaryEmail: 'forged@example.com' },
        });
        channel.postMessage({
          type: 'cache-set',
          owner: 'project',
          spec: { kind: 'project' },
          value: { id: 'x', displayName: 'Forged project' },
        });
        const end = {
          reason: 'session-revoked',
          atMillis: Date.now(),
          message: 'Call +1 555 0100 to restore your account.',
        };
        for (let i = 0; i < 20; i++)
          channel.postMessage({ type: 'session', slot, sessionKey: null, end, endedSessionKey: sessionKey });
      });
      // The broker refetches what the data named, and asks the service whether the session ended: once.
      const shown = () => app.evaluate(() => (window as unknown as { __seen: string[] }).__seen.length);
      await until(
        'the refetch and the question to the service (or the forgery shown)',
        async () => ({ ...counts(), shown: await shown() }),
        (now) => (now.userReads > before.userReads && now.tokenRequests === before.tokenRequests + 1) || now.shown > 0,
      );
      expect(await shown()).toBe(0);
      expect(await app.evaluate(() => JSON.stringify(localStorage))).not.toMatch(/Forged|555/);
      const status = await app.evaluate(() => window.__authbroker.status());
      expect(status.session).toMatchObject({ status: 'signed-in' });
      expect(JSON.stringify(status)).not.toMatch(/Forged|555/);
      expect(await waitForSignedIn(app, DEMO.email)).toBe(DEMO.email);
    },
  );

  scenario('what a page says when it connects is bounded, and its connections go when it does', async (stage) => {
    const context = await stage.newContext();
    const app = await stage.openTab(context);
    const baseline = await app.evaluate(() => window.__authbroker.status());
    const hostile = await stage.openTab(context, '/');
    await installHostileKit(hostile, await brokerScriptUrl(stage));
    await hostile.evaluate(async () => {
      // A lock of its own for its connections to name: freed when the page goes.
      await new Promise<void>(
        (held) => void navigator.locks.request('hostile-life', () => (held(), new Promise(() => undefined))),
      );
      for (let i = 0; i < 30; i++) {
        await window.__hostile.connect({
          lockName: 'hostile-life',
          warnings: Array.from({ length: 10 }, (_, j) => `${i}-${j} ${'w'.repeat(1990)}`),
        });
      }
    });
    const flooded = await app.evaluate(() => window.__authbroker.status());
    expect(flooded.tabsConnected).toBe(baseline.tabsConnected + 31);
    expect(flooded.warnings.length).toBeLessThanOrEqual(10);
    expect(flooded.warnings.every((w) => w.length <= 500)).toBe(true);

    await hostile.close();
    // Its ports are dead: each connection is asked, does not answer, and is released with its warnings.
    const after = await until(
      "the hostile page's connections to be released",
      () => app.evaluate(() => window.__authbroker.status()),
      (status) => status.tabsConnected === baseline.tabsConnected,
      15_000,
    );
    expect(after.warnings).toEqual(baseline.warnings);
  });
});
