/**
 * OAuth authorize and callback as the service answers them today: the SDK's JSON mode needs no inner cookie, the
 * client id may name the branch (`#main`), the public client-secret sentinel stands for "no key", and the authorize
 * checks what the service checks before a flow starts.
 */
import { describe, expect, it } from 'vitest';
import { withDemoConfig } from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { authorizeUrl, callback, consent, type StartedFlow } from '../support/oauth.js';

const emulator = useEmulator();

async function authorize(change: (url: URL) => void, project: 'demo' | 'internal' = 'demo') {
  const built = await authorizeUrl(emulator(), { project });
  const url = new URL(built.url);
  change(url);
  const response = await fetch(url, { redirect: 'manual' });
  const text = await response.text();
  return { ...built, response, text, known: response.headers.get('x-stack-known-error') };
}

describe('authorize', () => {
  it('in JSON mode sets no cookie, and its callback needs none', async () => {
    const started = await authorize((u) => u.searchParams.set('stack_response_mode', 'json'));
    expect(started.response.headers.get('set-cookie')).toBeNull();
    const flow: StartedFlow = {
      state: started.state,
      codeVerifier: started.codeVerifier,
      redirectUri: started.redirectUri,
      consentUrl: new URL((JSON.parse(started.text) as { location: string }).location),
      cookie: '',
      setCookie: '',
    };
    const done = await callback(await consent(flow, { email: uniqueEmail('json') }), null);
    expect(done.status).toBe(303);
    expect(new URL(done.location!).searchParams.get('state')).toBe(started.state);
    expect(done.headers.get('set-cookie')).toBeNull();
  });

  it('takes the project’s main branch in the client id, and no other', async () => {
    const em = emulator();
    const main = await authorize((u) => u.searchParams.set('client_id', `${em.projects.demo.id}#main`));
    expect(main.response.status).toBe(307);
    const other = await authorize((u) => u.searchParams.set('client_id', `${em.projects.demo.id}#dev`));
    expect({ status: other.response.status, known: other.known }).toEqual({
      status: 400,
      known: 'INVALID_OAUTH_CLIENT_ID_OR_SECRET',
    });
  });

  it('takes the public client-secret sentinel unless the project requires publishable keys', async () => {
    const em = emulator();
    const sentinel = (u: URL) => u.searchParams.set('client_secret', '__stack_public_client__');
    expect((await authorize(sentinel)).response.status).toBe(307);
    await withDemoConfig(em, { require_publishable_client_key: true }, async () => {
      expect((await authorize(sentinel)).known).toBe('PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT');
    });
  });

  it('refuses an untrusted after-callback URL and extra scopes with shared keys before the flow starts', async () => {
    const untrusted = await authorize((u) =>
      u.searchParams.set('after_callback_redirect_url', 'https://evil.example.com'),
    );
    expect(untrusted.known).toBe('REDIRECT_URL_NOT_WHITELISTED');
    const notUrl = await authorize((u) => u.searchParams.set('after_callback_redirect_url', 'not a url'));
    expect(notUrl.known).toBe('SCHEMA_ERROR');
    const scoped = await authorize((u) => {
      u.pathname = u.pathname.replace('/github', '/spotify');
      u.searchParams.set('provider_scope', 'user-read-email');
    }, 'internal');
    expect(scoped.known).toBe('OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS');
  });
});
