import { describe, expect, it } from 'vitest';
import { buildHeaders } from '../../protocol/codec.js';
import { createServerApp } from '../../protocol/server.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { createBroker } from '../../worker/index.js';
import { resolveBrokerConfig, type BrokerConfig } from '../../worker/config.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';

/**
 * One broker serves every tab of a project, service and token store, with the options it was
 * started with (issue 32, item 3): a tab asking with other options is refused, naming the option,
 * and no option can make the broker send a header the protocol sets itself.
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);

const PROJECT_ID = '27581ab5-090d-4de0-a603-9893113cd548';
const base: BrokerConfig = {
  baseUrl: 'http://127.0.0.1:8102',
  projectId: PROJECT_ID,
  publishableClientKey: 'pck_first_key_of_the_app',
};
const listener = { deliver: () => undefined };

describe('a tab whose options differ from the running broker’s', () => {
  it.each([
    [
      'publishableClientKey',
      { publishableClientKey: 'pck_another_key_entirely' },
      /publishableClientKey \(pck_anot…\) is not the running broker's \(pck_firs…\)/,
    ],
    [
      'internalPublishableClientKey',
      { internalPublishableClientKey: 'pck_internal_key_value' },
      /internalPublishableClientKey \(pck_inte…\) is not the running broker's \(none\)/,
    ],
    [
      'tokenMarginMillis',
      { tokenMarginMillis: 5000 },
      /tokenMarginMillis \(5000\) is not the running broker's \(20000\)/,
    ],
    ['refetchOnReturn', { refetchOnReturn: false }, /refetchOnReturn \(false\) is not the running broker's \(true\)/],
    [
      'extraRequestHeaders',
      { extraRequestHeaders: { 'X-App-Tenant': 'secret-tenant-value' } },
      /extraRequestHeaders \(X-App-Tenant\) is not the running broker's \(none\)/,
    ],
  ])(
    '%s: refused with INVALID_ARGUMENT naming it, never printing a key or a header value whole',
    async (field, tabOptions, said) => {
      const broker = await createBroker(base, {
        mode: 'shared-worker',
        locks: null,
        storage: (await import('../../worker/storage/memory.js')).createMemoryStorage(),
      });
      try {
        let error: unknown;
        try {
          broker.connectWithConfig({ ...base, ...tabOptions }, { version: '' }, listener);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', argument: `config.${field}` });
        expect((error as Error).message).toMatch(said);
        expect((error as Error).message).not.toMatch(
          /pck_another_key_entirely|pck_first_key_of_the_app|pck_internal_key_value|secret-tenant-value/,
        );
        // The same options, in another order and header case, are the same config.
        expect(() =>
          broker.connectWithConfig(
            { ...base, publishableClientKey: base.publishableClientKey },
            { version: '' },
            listener,
          ),
        ).not.toThrow();
      } finally {
        broker.close();
      }
    },
  );

  it('the same headers under other letter cases are the same config', async () => {
    const config = {
      ...base,
      extraRequestHeaders: { 'X-App-Tenant': 'acme', 'x-stack-disable-artificial-development-delay': 'yes' },
    };
    const broker = await createBroker(config, {
      mode: 'shared-worker',
      locks: null,
      storage: (await import('../../worker/storage/memory.js')).createMemoryStorage(),
    });
    try {
      expect(() =>
        broker.connectWithConfig(
          {
            ...base,
            extraRequestHeaders: { 'x-stack-disable-artificial-development-delay': 'yes', 'x-app-tenant': 'acme' },
          },
          { version: '' },
          listener,
        ),
      ).not.toThrow();
      expect(() =>
        broker.connectWithConfig(
          { ...base, extraRequestHeaders: { 'x-app-tenant': 'other' } },
          { version: '' },
          listener,
        ),
      ).toThrow(
        /extraRequestHeaders \(x-app-tenant\) is not the running broker's \(X-App-Tenant, x-stack-disable-artificial-development-delay\)/,
      );
      expect(() =>
        broker.connectWithConfig(
          {
            ...base,
            extraRequestHeaders: { 'x-app-tenant': 'other', 'x-stack-disable-artificial-development-delay': 'yes' },
          },
          { version: '' },
          listener,
        ),
      ).toThrow(/^(?!.*other)/);
    } finally {
      broker.close();
    }
  });
});

describe('extra headers never replace a header the protocol sets', () => {
  const protocolHeaders = [
    'x-stack-access-type',
    'X-Stack-Project-Id',
    'x-stack-publishable-client-key',
    'x-stack-access-token',
    'x-stack-refresh-token',
    'x-stack-admin-access-token',
    'x-hexclave-access-type',
    'X-Hexclave-Project-Id',
    'x-hexclave-publishable-client-key',
    'x-hexclave-access-token',
    'x-hexclave-refresh-token',
    'x-hexclave-admin-access-token',
  ];

  it.each(protocolHeaders)(
    '%s in extraRequestHeaders: refused by the broker with INVALID_ARGUMENT naming it',
    (name) => {
      expect(() => resolveBrokerConfig({ ...base, extraRequestHeaders: { [name]: 'server' } })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', argument: `config.extraRequestHeaders["${name}"]` }),
      );
      expect(() =>
        createServerApp({
          baseUrl: base.baseUrl,
          projectId: PROJECT_ID,
          secretServerKey: 'ssk_server_side_key',
          extraRequestHeaders: { [name]: 'x' },
        }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    },
  );

  it.each(['x-hexclave-secret-server-key', 'X-Hexclave-Super-Secret-Admin-Key', 'x-stack-secret-server-key'])(
    '%s in extraRequestHeaders: refused as a secret (UNSAFE_CREDENTIALS)',
    (name) => {
      expect(() => resolveBrokerConfig({ ...base, extraRequestHeaders: { [name]: 'anything' } })).toThrow(
        expect.objectContaining({ code: 'UNSAFE_CREDENTIALS' }),
      );
    },
  );

  it('other headers of both families stay the app’s to send', () => {
    const extra = {
      'x-stack-disable-artificial-development-delay': 'yes',
      'x-hexclave-allow-anonymous-user': 'true',
      'x-app-tenant': 'acme',
    };
    expect(resolveBrokerConfig({ ...base, extraRequestHeaders: extra }).extraRequestHeaders).toEqual(extra);
    const headers = buildHeaders(
      { projectId: PROJECT_ID, accessType: 'client', publishableClientKey: 'pck_key' },
      { hasBody: false, extraHeaders: extra },
    );
    expect(headers.get('x-stack-disable-artificial-development-delay')).toBe('yes');
    expect(headers.get('x-app-tenant')).toBe('acme');
  });

  it('whatever checked the options or did not, the request carries the protocol’s own headers', () => {
    const extra = Object.fromEntries(protocolHeaders.map((name) => [name, 'forged']));
    const headers = buildHeaders(
      { projectId: PROJECT_ID, accessType: 'client', publishableClientKey: 'pck_key', accessToken: 'eyJ.the.token' },
      { hasBody: false, extraHeaders: extra },
    );
    expect(headers.get('x-stack-access-type')).toBe('client');
    expect(headers.get('x-stack-project-id')).toBe(PROJECT_ID);
    expect(headers.get('x-stack-publishable-client-key')).toBe('pck_key');
    expect(headers.get('x-stack-access-token')).toBe('eyJ.the.token');
    for (const name of [
      'x-stack-refresh-token',
      'x-stack-admin-access-token',
      'x-hexclave-access-type',
      'x-hexclave-access-token',
    ])
      expect(headers.has(name), name).toBe(false);
  });

  it('a broker whose first tab asked for the server access type never exists: the app’s sign-in works', async () => {
    const em = emulator();
    await expect(scope.start({ extraRequestHeaders: { 'x-stack-access-type': 'server' } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    const started = await scope.start();
    const tab = await scope.tab(started);
    await expect(
      tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' }),
    ).resolves.toMatchObject({ status: 'signed-in' });
    expect(em.url).toMatch(/^http/);
  });
});
