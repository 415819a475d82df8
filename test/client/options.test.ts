import { render, screen, waitFor } from '@testing-library/react';
import { createElement as h } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ClientError,
  connectBroker,
  createBrokerClient,
  InvalidArgumentError,
  type ConnectOptions,
} from '../../client/index.js';
import { describeError } from '../../client/messages.js';
import { AuthProvider } from '../../client/react/index.js';
import { createAdminApp, createServerApp } from '../../protocol/server.js';
import { Boundary, quietConsoleErrors, resetBrowser } from './react/helpers.js';

afterEach(resetBrowser);

const PROJECT_ID = '27581ab5-090d-4de0-a603-9893113cd548';
const valid: ConnectOptions = {
  baseUrl: 'http://127.0.0.1:8102',
  projectId: PROJECT_ID,
  publishableClientKey: 'pck_demo',
  mode: 'in-process',
};

/** The error a call throws (synchronously or as a rejection). */
async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('secret keys are refused in the browser', () => {
  it.each(['secretServerKey', 'superSecretAdminKey'])(
    'createBrokerClient refuses %s with UNSAFE_CREDENTIALS and says why and where it belongs',
    async (key) => {
      const fetchSpy = vi.spyOn(globalThis, 'fetch');
      const error = await thrown(() => createBrokerClient({ ...valid, [key]: 'ssk_or_sak_value' } as ConnectOptions));
      expect(error).toBeInstanceOf(ClientError);
      expect(error).toMatchObject({ code: 'UNSAFE_CREDENTIALS' });
      const message = (error as Error).message;
      expect(message).toContain(key);
      expect(message).toMatch(/never be given to browser code/);
      expect(message).toMatch(/anyone could read it/);
      expect(message).toContain('authbroker/server');
      // The secret is not echoed back into logs.
      expect(message).not.toContain('ssk_or_sak_value');
      expect(fetchSpy).not.toHaveBeenCalled();
    },
  );

  it('refuses the key even when its value is empty or undefined, and through connectBroker', async () => {
    for (const value of ['', undefined]) {
      expect(
        await thrown(() => createBrokerClient({ ...valid, secretServerKey: value } as ConnectOptions)),
      ).toMatchObject({ code: 'UNSAFE_CREDENTIALS' });
    }
    expect(await thrown(() => connectBroker({ ...valid, superSecretAdminKey: 'sak' } as ConnectOptions))).toMatchObject(
      { code: 'UNSAFE_CREDENTIALS' },
    );
  });

  it('<AuthProvider options> with a secret key fails at render with the same error', async () => {
    quietConsoleErrors();
    const caught: unknown[] = [];
    render(
      h(
        Boundary,
        { onError: (error: unknown) => caught.push(error) },
        h(AuthProvider, { options: { ...valid, secretServerKey: 'ssk' } as ConnectOptions }),
      ),
    );
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('ClientError:UNSAFE_CREDENTIALS'));
    expect(caught[0]).toBeInstanceOf(ClientError);
  });

  it('describeError gives the refusal as a sentence', async () => {
    const error = await thrown(() => createBrokerClient({ ...valid, superSecretAdminKey: 'sak' } as ConnectOptions));
    expect(describeError(error)).toMatch(/^superSecretAdminKey must never be given to browser code/);
  });
});

describe('authbroker/server refuses secret keys in a browser-like environment (jsdom has window and document)', () => {
  const common = { baseUrl: 'http://127.0.0.1:8102', projectId: PROJECT_ID };

  it('createServerApp with a secret server key', async () => {
    const error = await thrown(() => createServerApp({ ...common, secretServerKey: 'ssk_demo' }));
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: 'UNSAFE_CREDENTIALS',
      message: expect.stringMatching(/^A secret server key must never be shipped to a browser/),
    });
    expect((error as Error).message).not.toContain('ssk_demo');
  });

  it('createAdminApp with a super secret admin key', async () => {
    const error = await thrown(() => createAdminApp({ ...common, superSecretAdminKey: 'sak_demo' }));
    expect(error).toMatchObject({
      name: 'ClientError',
      code: 'UNSAFE_CREDENTIALS',
      message: expect.stringMatching(
        /^A super secret admin key must never be shipped to a browser.*admin access token/,
      ),
    });
  });

  it('createAdminApp refuses a secret key given as the admin access token, or riding along in extraRequestHeaders', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const asToken = await thrown(() => createAdminApp({ ...common, adminAccessToken: 'sak_pasted_here' }));
    expect(asToken).toMatchObject({
      name: 'ClientError',
      code: 'UNSAFE_CREDENTIALS',
      message: expect.stringMatching(/^adminAccessToken is a secret key/),
    });
    expect((asToken as Error).message).not.toContain('sak_pasted_here');
    for (const extraRequestHeaders of [
      { 'X-Stack-Secret-Server-Key': 'anything' },
      { 'x-forwarded-key': 'ssk_value' },
    ] as Array<Record<string, string>>) {
      expect(
        await thrown(() => createAdminApp({ ...common, adminAccessToken: 'eyJ.admin.token', extraRequestHeaders })),
      ).toMatchObject({ code: 'UNSAFE_CREDENTIALS' });
    }
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('createAdminApp with a project owner’s admin access token is allowed in the browser', () => {
    const app = createAdminApp({ ...common, adminAccessToken: 'eyJ.admin.token' });
    expect(typeof app.listApiKeys).toBe('function');
  });

  it('checks its arguments before the environment: bad options are InvalidArgumentErrors', async () => {
    expect(
      await thrown(() => createServerApp({ ...common, baseUrl: 'ftp://example.com', secretServerKey: 'ssk' })),
    ).toMatchObject({ name: 'InvalidArgumentError', argument: 'baseUrl' });
    expect(await thrown(() => createAdminApp({ ...common } as never))).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('bad options are InvalidArgumentErrors naming the option, thrown when the client is created', () => {
  it.each([
    ['no options at all', null, 'options'],
    ['a string instead of options', 'http://localhost', 'options'],
    ['no baseUrl', { ...valid, baseUrl: undefined }, 'options.baseUrl'],
    ['an empty baseUrl', { ...valid, baseUrl: '' }, 'options.baseUrl'],
    ['a baseUrl that is not a URL', { ...valid, baseUrl: 'localhost:8102' }, 'options.baseUrl'],
    ['a baseUrl that is not http(s)', { ...valid, baseUrl: 'ftp://auth.example.com' }, 'options.baseUrl'],
    ['a baseUrl with spaces before it', { ...valid, baseUrl: '  http://127.0.0.1:8102' }, 'options.baseUrl'],
    ['a baseUrl without its slashes', { ...valid, baseUrl: 'http:127.0.0.1:8102' }, 'options.baseUrl'],
    ['an empty projectId', { ...valid, projectId: '' }, 'options.projectId'],
    ['a numeric publishableClientKey', { ...valid, publishableClientKey: 42 }, 'options.publishableClientKey'],
    ['an unknown mode', { ...valid, mode: 'web-worker' }, 'options.mode'],
    ['a negative connectTimeoutMillis', { ...valid, connectTimeoutMillis: -1 }, 'options.connectTimeoutMillis'],
    [
      'a connectTimeoutMillis that is not a number',
      { ...valid, connectTimeoutMillis: '8000' },
      'options.connectTimeoutMillis',
    ],
    ['a tokenMarginMillis of a minute or more', { ...valid, tokenMarginMillis: 60_000 }, 'options.tokenMarginMillis'],
    ['a refetchOnReturn that is not a boolean', { ...valid, refetchOnReturn: 'yes' }, 'options.refetchOnReturn'],
    ['an unknown tokenStore', { ...valid, tokenStore: 'cookie' }, 'options.tokenStore'],
  ])('%s', async (_, options, argument) => {
    const error = await thrown(() => createBrokerClient(options as ConnectOptions));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', argument });
    expect((error as Error).message.length).toBeGreaterThan(10);
  });

  it('valid options create a client without connecting', () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const client = createBrokerClient(valid);
    expect(client.mode).toBeNull();
    expect(client.urls.signIn).toBe('http://localhost:3000/handler/sign-in');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe('placeholders and malformed ids fail at once, naming the option and what a valid value looks like', () => {
  // Kept literally from the README, the first sign-in used to fail with "Failed to execute 'set' on
  // 'Headers': String contains non ISO-8859-1 code point".
  it.each([
    [
      'the README’s projectId placeholder',
      { projectId: '…' },
      'options.projectId',
      /must be your project's id: a UUID .* or "internal", got "…"/,
    ],
    ['a project name instead of its id', { projectId: 'my-app' }, 'options.projectId', /a UUID .*got "my-app"/],
    ['a UUID with a stray character', { projectId: `${PROJECT_ID}x` }, 'options.projectId', /a UUID/],
    [
      'the README’s key placeholder',
      { publishableClientKey: 'pck_…' },
      'options.publishableClientKey',
      /printable ASCII.*placeholder such as "pck_…"/,
    ],
    [
      'a key copied with a space',
      { publishableClientKey: 'pck_abc def' },
      'options.publishableClientKey',
      /printable ASCII/,
    ],
    [
      'a key too short to be one',
      { publishableClientKey: 'abc' },
      'options.publishableClientKey',
      /"pck_" followed by letters and digits/,
    ],
    ['the prefix alone', { publishableClientKey: 'pck_' }, 'options.publishableClientKey', /"pck_" followed by/],
    [
      'an internal key placeholder',
      { internalPublishableClientKey: 'pck_…' },
      'options.internalPublishableClientKey',
      /printable ASCII/,
    ],
  ])('%s', async (_, extra, argument, message) => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const error = await thrown(() => createBrokerClient({ ...valid, ...extra }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', argument });
    expect((error as Error).message.startsWith(argument)).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('a key is never repeated in the message', async () => {
    const error = await thrown(() =>
      createBrokerClient({ ...valid, publishableClientKey: 'pck_secretish\u00e9value' }),
    );
    expect((error as Error).message).not.toContain('secretish');
  });

  it("a key without the pck_ prefix is accepted: a self-hosted service's internal project has fixed keys of any form", () => {
    expect(() =>
      createBrokerClient({
        ...valid,
        internalPublishableClientKey: 'this-publishable-client-key-is-for-local-development-only',
      }),
    ).not.toThrow();
    expect(() =>
      createBrokerClient({ ...valid, publishableClientKey: 'xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb' }),
    ).not.toThrow();
  });

  it('"internal" and any UUID are project ids', () => {
    expect(() => createBrokerClient({ ...valid, projectId: 'internal' })).not.toThrow();
    expect(() => createBrokerClient({ ...valid, projectId: PROJECT_ID.toUpperCase() })).not.toThrow();
  });

  it('the broker refuses the same from a tab that sends it', async () => {
    const { resolveBrokerConfig } = await import('../../worker/config.js');
    expect(() =>
      resolveBrokerConfig({ baseUrl: valid.baseUrl, projectId: '…', publishableClientKey: 'pck_x' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', argument: 'config.projectId' }));
    expect(() =>
      resolveBrokerConfig({ baseUrl: valid.baseUrl, projectId: PROJECT_ID, publishableClientKey: 'pck_…' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', argument: 'config.publishableClientKey' }));
  });

  it('the server and admin apps check the project id, and that their keys are printable ASCII', async () => {
    const base = { baseUrl: 'https://api.example.test', projectId: PROJECT_ID };
    expect(await thrown(() => createServerApp({ ...base, projectId: '…', secretServerKey: 'ssk_x' }))).toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'projectId',
      message: expect.stringMatching(/^projectId must be your project's id: a UUID/),
    });
    expect(
      await thrown(() => createAdminApp({ ...base, projectId: 'demo', adminAccessToken: 'eyJ.a.b' })),
    ).toMatchObject({ name: 'InvalidArgumentError', argument: 'projectId' });
    expect(() => createAdminApp({ ...base, projectId: 'internal', adminAccessToken: 'eyJ.a.b' })).not.toThrow();
  });
});

describe('one broker per tab is never silent', () => {
  const warned = () => vi.spyOn(console, 'warn').mockImplementation(() => undefined);

  it('without sharedWorker or serviceWorker, one console warning per page naming the options to add', async () => {
    vi.resetModules();
    const fresh = await import('../../client/index.js');
    const warn = warned();
    const { mode: _, ...auto } = valid;
    // Said when a client first connects (the connection loads after the first render).
    await fresh.createBrokerClient(auto).connect();
    await fresh.createBrokerClient(auto).connect();
    const said = warn.mock.calls.map((call) => String(call[0])).filter((message) => message.includes('sharedWorker'));
    expect(said).toHaveLength(1);
    const message = said[0]!;
    expect(message).toMatch(
      /^authbroker: neither the sharedWorker nor the serviceWorker option was given, so every tab runs its own broker/,
    );
    expect(message).toContain(
      "sharedWorker: (name) => new SharedWorker(new URL('authbroker/worker/shared', import.meta.url)",
    );
    expect(message).toContain("serviceWorker: '/authbroker-service-worker.js'");
  });

  it.each([
    ['a sharedWorker', { sharedWorker: '/authbroker-shared-worker.js' }],
    ['a serviceWorker', { serviceWorker: '/authbroker-service-worker.js' }],
    ['mode: in-process, chosen', { mode: 'in-process' as const }],
  ])('no warning with %s', async (_, extra) => {
    vi.resetModules();
    const fresh = await import('../../client/index.js');
    const warn = warned();
    const { mode: __, ...auto } = valid;
    await fresh
      .createBrokerClient({ ...auto, ...extra })
      .connect()
      .catch(() => undefined);
    expect(warn.mock.calls.filter((call) => String(call[0]).includes('every tab runs its own broker'))).toEqual([]);
  });
});

describe('misconfiguration is refused where it happens', () => {
  it.each([
    [
      'a secret server key pasted as the publishable key',
      { publishableClientKey: 'ssk_pasted_by_mistake' },
      'options.publishableClientKey',
    ],
    [
      'a super secret admin key as the internal publishable key',
      { internalPublishableClientKey: 'sak_oops' },
      'options.internalPublishableClientKey',
    ],
    [
      'a secret key among extraRequestHeaders',
      { extraRequestHeaders: { 'x-my-key': 'ssk_value' } },
      'options.extraRequestHeaders["x-my-key"]',
    ],
    [
      'a secret-key header among extraRequestHeaders',
      { extraRequestHeaders: { 'X-Stack-Super-Secret-Admin-Key': 'anything' } },
      'options.extraRequestHeaders["X-Stack-Super-Secret-Admin-Key"]',
    ],
  ])('%s: UNSAFE_CREDENTIALS naming the option, before anything is sent', async (_, extra, option) => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const error = await thrown(() => createBrokerClient({ ...valid, ...extra }));
    expect(error).toMatchObject({ name: 'ClientError', code: 'UNSAFE_CREDENTIALS' });
    expect((error as Error).message.startsWith(option)).toBe(true);
    expect((error as Error).message).not.toMatch(/ssk_value|sak_oops|ssk_pasted/);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it.each(['x-hexclave-secret-server-key', 'X-Hexclave-Super-Secret-Admin-Key'])(
    'the x-hexclave-* secret-key header %s among extraRequestHeaders: UNSAFE_CREDENTIALS',
    async (name) => {
      expect(
        await thrown(() => createBrokerClient({ ...valid, extraRequestHeaders: { [name]: 'anything' } })),
      ).toMatchObject({ code: 'UNSAFE_CREDENTIALS' });
    },
  );

  it.each([
    'x-stack-access-type',
    'X-Hexclave-Access-Type',
    'x-stack-project-id',
    'x-hexclave-access-token',
    'x-stack-refresh-token',
  ])(
    '%s among extraRequestHeaders (a header the protocol sets): INVALID_ARGUMENT naming it when the tab connects, before anything is sent',
    async (name) => {
      const fetchSpy = vi.spyOn(globalThis, 'fetch');
      const error = await thrown(() =>
        createBrokerClient({ ...valid, extraRequestHeaders: { [name]: 'server' } }).connect(),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ argument: `config.extraRequestHeaders["${name}"]` });
      expect(fetchSpy).not.toHaveBeenCalled();
      // Other headers of the families stay allowed (the development backend's, for one).
      expect(() =>
        createBrokerClient({
          ...valid,
          extraRequestHeaders: { 'x-stack-disable-artificial-development-delay': 'yes' },
        }),
      ).not.toThrow();
    },
  );

  it('the broker refuses the same from a tab that sends such a config', async () => {
    const { resolveBrokerConfig } = await import('../../worker/config.js');
    expect(() =>
      resolveBrokerConfig({ baseUrl: valid.baseUrl, projectId: PROJECT_ID, publishableClientKey: 'sak_x' }),
    ).toThrow(expect.objectContaining({ code: 'UNSAFE_CREDENTIALS' }));
    expect(() =>
      resolveBrokerConfig({
        baseUrl: valid.baseUrl,
        projectId: PROJECT_ID,
        publishableClientKey: 'pck_x',
        extraRequestHeaders: { 'x-stack-secret-server-key': 'k' },
      }),
    ).toThrow(expect.objectContaining({ code: 'UNSAFE_CREDENTIALS' }));
  });

  it('a baseUrl ending in /api/v1 (as the emulator prints its API URL) means the same service', async () => {
    const { resolveBrokerConfig, brokerKeyOf } = await import('../../worker/config.js');
    const { workerName } = await import('../../client/connectOptions.js');
    for (const baseUrl of ['http://127.0.0.1:8102/api/v1', 'http://127.0.0.1:8102/api/v1/', 'http://127.0.0.1:8102/']) {
      expect(resolveBrokerConfig({ baseUrl, projectId: PROJECT_ID, publishableClientKey: 'pck_x' }).baseUrl).toBe(
        'http://127.0.0.1:8102',
      );
      expect(brokerKeyOf({ baseUrl, projectId: 'p' })).toBe('p@http://127.0.0.1:8102');
      expect(workerName({ baseUrl, projectId: 'p' })).toBe('authbroker:p@http://127.0.0.1:8102');
    }
  });
});
