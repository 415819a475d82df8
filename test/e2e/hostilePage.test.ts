import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import { DEMO } from './support/ui.js';
import { WorkerTarget } from './support/workerCdp.js';

interface Reply {
  type?: string;
  name?: string;
  value?: { authbroker?: { code?: string } };
}

/**
 * A hostile page on the app's origin opens its own port to the broker's SharedWorker and speaks
 * Comlink's wire format by hand: every message that is not a call of a named API method is refused
 * with INVALID_ARGUMENT, nothing runs or changes in the broker, and the app's own tab carries on.
 */
describe('a hostile page on the same origin', () => {
  scenario('Comlink GET / SET / CONSTRUCT, nested and inherited paths and prototype keys are refused; the broker and the app are untouched', async (stage) => {
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
        runCode: await ask(worker.port, { type: 'APPLY', path: ['constructor', 'constructor'], argumentList: [raw('return self')] }),
        construct: await ask(worker.port, { type: 'CONSTRUCT', path: ['connect'], argumentList: [] }),
      };
      // A legitimate connect gives this page its own API port, the surface a hostile page can reach.
      const { port1: listener, port2: brokerSide } = new MessageChannel();
      const connected = (await ask(worker.port, { type: 'APPLY', path: ['connect'], argumentList: [raw(config), raw({ tabId: 'hostile', version: '' }), raw(brokerSide)] }, [brokerSide])) as {
        value: MessagePort;
      };
      const api = connected.value;
      const polluting = JSON.parse('{"email":"x@example.com","password":"pw-123456","__proto__":{"polluted":true}}') as unknown;
      const onApi: Record<string, unknown> = {
        get: await ask(api, { type: 'GET', path: ['getAccessToken'] }),
        set: await ask(api, { type: 'SET', path: ['__proto__', 'polluted'], value: raw(true) }),
        construct: await ask(api, { type: 'CONSTRUCT', path: ['signOut'], argumentList: [] }),
        nested: await ask(api, { type: 'APPLY', path: ['signOut', 'call'], argumentList: [] }),
        inherited: await ask(api, { type: 'APPLY', path: ['toString'], argumentList: [] }),
        prototype: await ask(api, { type: 'APPLY', path: ['__proto__'], argumentList: [] }),
        endpoint: await ask(api, { type: 'ENDPOINT' }),
        proxyArgument: await ask(api, { type: 'APPLY', path: ['signInWithPassword'], argumentList: [{ type: 'HANDLER', name: 'proxy', value: null }] }),
        prototypeKeys: await ask(api, { type: 'APPLY', path: ['signInWithPassword'], argumentList: [raw(polluting)] }),
      };
      listener.close();
      return { entry, onApi };
    }, workerUrl);

    const refused = (reply: unknown) => (reply as Reply).type === 'HANDLER' && (reply as Reply).name === 'throw' && (reply as Reply).value?.authbroker?.code === 'INVALID_ARGUMENT';
    for (const [what, reply] of [...Object.entries(replies.entry), ...Object.entries(replies.onApi)]) expect(refused(reply), `${what}: ${JSON.stringify(reply)}`).toBe(true);

    // Nothing leaked into the broker's prototypes, and the app's own tab is still signed in and served.
    const worker = await WorkerTarget.attach(session, stage.demo.url);
    const polluted = await worker.send<{ result: { value: unknown } }>('Runtime.evaluate', { expression: '({}).polluted === undefined && Object.prototype.polluted === undefined', returnByValue: true });
    expect(polluted.result.value).toBe(true);
    expect(await app.evaluate(() => window.__authbroker.getAccessToken())).toMatch(/^ey/);
    expect((await app.evaluate(() => window.__authbroker.status())).session).toMatchObject({ status: 'signed-in' });
  });
});
