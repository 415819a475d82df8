import { createHash, randomBytes } from 'node:crypto';
import { KnownError } from '../../protocol/errors/knownError.js';
import { createKnownError } from '../../protocol/errors/create.js';
import { isTrustedRedirectUrl } from '../../protocol/validation.js';
import { clientSecretProblem, projectOfClientId } from '../auth/oauthClient.js';
import { verifyAccessToken } from '../auth/jwt.js';
import { randomToken, sha256Hex } from '../crypto.js';
import {
  defaultProviderScopes,
  exchangeProviderCode,
  mockAuthorizeUrl,
  type ExchangeResult,
  type ProviderGrant,
} from '../dev/oauthProvider.js';
import type { ExternalOAuthProvider } from '../dev/externalOAuthProvider.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { redirect, type ApiRequest, type Reply } from '../http/types.js';
import { botChallengeFields, obj, url, validate, yup } from '../http/validate.js';
import type { OAuthAccountRecord, OAuthFlowRecord, ProjectRecord, UserRecord } from '../state/model.js';
import { newOAuthAccount, signInAccount } from '../state/oauthAccounts.js';
import { own } from '../state/store.js';
import { signUpOrUpgrade } from '../state/anonymous.js';
import { authChannelByEmail, findUser } from '../state/users.js';
import { serviceErrorBody } from '../http/serviceWording.js';
import { errorReply } from '../server.js';
import { listedProviders } from '../state/projects.js';
import { trustPolicy } from './password.js';

const INNER_COOKIE = 'stack-oauth-inner-';
/** The outer flow must complete within 10 minutes (OUTER_OAUTH_TIMEOUT). */
const OUTER_FLOW_MILLIS = 10 * 60 * 1000;
/** The OAuth library's authorization-code lifetime. */
const AUTHORIZATION_CODE_MILLIS = 5 * 60 * 1000;
/** Tokens kept per provider account: enough history for connected accounts, bounded state. */
const MAX_TOKENS_PER_ACCOUNT = 20;

export function extractScopes(scope: string | null | undefined): string[] {
  return [...new Set((scope ?? '').split(/\s+/).filter((s) => s !== ''))];
}

/** The provider config a project offers, if any. */
export function enabledProvider(p: ProjectRecord, providerId: string) {
  return listedProviders(p.config).find((o) => o.id === providerId);
}

/**
 * The client id the service would present to the provider (shared providers use the service's own keys, whatever the
 * config says).
 */
function providerClientId(p: ProjectRecord, providerId: string): string {
  const provider = enabledProvider(p, providerId);
  return provider?.type === 'standard' && provider.client_id !== undefined
    ? provider.client_id
    : `stack-shared-${providerId}`;
}

/** The external OpenID provider when one plays the shared providers (the service's `STACK_OAUTH_MOCK_URL`). */
function externalProviderFor(req: ApiRequest, type: 'shared' | 'standard' | undefined): ExternalOAuthProvider | null {
  return type === 'shared' ? req.env.externalOAuthProvider : null;
}

/** The provider's code exchanged for its account and tokens, at the external provider or the emulator's own. */
async function exchangeCode(
  req: ApiRequest,
  p: ProjectRecord,
  flow: OAuthFlowRecord,
  providerId: string,
  code: string,
): Promise<ExchangeResult> {
  if (providerId !== flow.provider_id) return { ok: false, error: 'invalid_grant' };
  const external = externalProviderFor(req, enabledProvider(p, providerId)?.type);
  if (external === null)
    return exchangeProviderCode(req.env, providerId, code, {
      clientId: providerClientId(p, providerId),
      redirectUri: callbackUrl(req, providerId),
      codeVerifier: flow.inner_code_verifier ?? '',
    });
  const exchanged = await external.exchange({
    providerId,
    code,
    redirectUri: callbackUrl(req, providerId),
    codeVerifier: flow.inner_code_verifier ?? '',
    now: req.now,
  });
  if (exchanged.ok) return exchanged;
  if (exchanged.error === 'access_denied') throw createKnownError('OAUTH_PROVIDER_ACCESS_DENIED');
  return { ok: false, error: exchanged.error };
}

function callbackUrl(req: ApiRequest, providerId: string): string {
  return `${req.env.baseUrl}/api/v1/auth/oauth/callback/${encodeURIComponent(providerId)}`;
}

function withoutFragment(value: string): string {
  const parsed = new URL(value);
  parsed.hash = '';
  return parsed.toString();
}

function pruneFlows(p: ProjectRecord, now: number): void {
  for (const [state, flow] of Object.entries(p.oauth_flows))
    if (flow.created_at_millis + OUTER_FLOW_MILLIS * 6 < now) delete p.oauth_flows[state];
  for (const [hash, code] of Object.entries(p.authorization_codes))
    if (code.expires_at_millis + OUTER_FLOW_MILLIS < now) delete p.authorization_codes[hash];
}

const authorizeQuery = obj({
  client_id: yup.string().defined(),
  client_secret: yup.string().defined(),
  redirect_uri: url().defined(),
  scope: yup.string().defined(),
  state: yup.string().defined(),
  grant_type: yup.string().oneOf(['authorization_code']).defined(),
  code_challenge: yup.string().defined(),
  code_challenge_method: yup.string().oneOf(['S256', 'plain']).defined(),
  response_type: yup.string().oneOf(['code']).defined(),
  type: yup.string().oneOf(['authenticate', 'link']).default('authenticate'),
  token: yup.string().default(''),
  provider_scope: yup.string(),
  error_redirect_uri: url(),
  error_redirect_url: url(),
  after_callback_redirect_url: url(),
  // The SDK fetches the authorize URL and navigates itself (2.8.x sends `stack_response_mode`,
  // 2.8.108 and later also `hexclave_response_mode`): the answer is then JSON, not a redirect.
  stack_response_mode: yup.string().oneOf(['json', 'redirect']),
  hexclave_response_mode: yup.string().oneOf(['json', 'redirect']),
  ...botChallengeFields(),
}).defined();

async function authorize(req: ApiRequest): Promise<Reply> {
  const { query } = validate(req, { query: authorizeQuery });
  const providerId = req.params.provider_id!;
  // The access token (a link flow's user, or an anonymous user to upgrade) is verified before anything
  // is read, so the state below is current. A link flow needs one.
  const tokenCheck =
    query.type === 'link' || query.token !== '' ? await verifyAccessToken(req.env.store, query.token, req.now) : null;
  const p = projectOfClientId(req.env.store, query.client_id);
  if (!p) throw createKnownError('INVALID_OAUTH_CLIENT_ID_OR_SECRET', { client_id: query.client_id });
  const secretProblem = clientSecretProblem(p, query.client_secret, req.now);
  if (secretProblem === 'required')
    throw createKnownError('PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT', { project_id: p.id });
  if (secretProblem === 'invalid') throw createKnownError('INVALID_PUBLISHABLE_CLIENT_KEY', { project_id: p.id });
  const provider = enabledProvider(p, providerId);
  if (!provider) throw createKnownError('OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED');
  // Checked before the flow starts, in the service's order.
  if (query.type === 'link' && query.token === '')
    throw new StatusError(400, '?token= query parameter is required for link type');
  if (
    query.after_callback_redirect_url !== undefined &&
    !isTrustedRedirectUrl(query.after_callback_redirect_url, trustPolicy(p))
  )
    throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
  if (query.provider_scope !== undefined && provider.type === 'shared')
    throw createKnownError('OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS');
  let linkUserId: string | null = null;
  if (tokenCheck !== null) {
    if (!tokenCheck.ok && tokenCheck.reason === 'expired')
      throw createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: tokenCheck.expiredAtMillis });
    if (!tokenCheck.ok) throw createKnownError('UNPARSABLE_ACCESS_TOKEN');
    if (tokenCheck.projectId !== p.id) throw new StatusError(403, 'The access token is not valid for this project');
    linkUserId = tokenCheck.userId;
  }
  const jsonMode = query.stack_response_mode === 'json' || query.hexclave_response_mode === 'json';
  const providerState = randomToken();
  const innerVerifier = randomBytes(32).toString('base64url');
  const flow: OAuthFlowRecord = {
    provider_state: providerState,
    provider_id: providerId,
    redirect_uri: withoutFragment(query.redirect_uri),
    client_state: query.state,
    code_challenge: query.code_challenge,
    code_challenge_method: query.code_challenge_method,
    type: query.type,
    link_user_id: linkUserId,
    provider_scope: query.provider_scope ?? null,
    error_redirect_url: query.error_redirect_uri ?? query.error_redirect_url ?? null,
    after_callback_redirect_url: query.after_callback_redirect_url ?? null,
    created_at_millis: req.now,
    scope: query.scope,
    inner_code_verifier: innerVerifier,
    ...(jsonMode ? { response_mode: 'json' as const } : {}),
  };
  pruneFlows(p, req.now);
  p.oauth_flows[providerState] = flow;
  const codeChallenge = createHash('sha256').update(innerVerifier).digest('base64url');
  const external = externalProviderFor(req, provider.type);
  const location = external
    ? await external.authorizationUrl({
        providerId,
        redirectUri: callbackUrl(req, providerId),
        state: providerState,
        codeChallenge,
        extraScope: query.provider_scope ?? null,
      })
    : mockAuthorizeUrl(req.env, providerId, {
        clientId: providerClientId(p, providerId),
        redirectUri: callbackUrl(req, providerId),
        state: providerState,
        scopes: extractScopes([...defaultProviderScopes(providerId), query.provider_scope ?? ''].join(' ')),
        codeChallenge,
      });
  // In JSON mode the SDK drives the flow and PKCE guards it: no cookie, as the service answers.
  if (jsonMode) return { kind: 'json', status: 200, body: { location } };
  // The cookie the callback checks (a browser-redirect flow's CSRF guard), written as the service's framework writes
  // it; no `Secure`: the service adds it only outside development.
  const expires = new Date(req.now + OUTER_FLOW_MILLIS).toUTCString();
  const cookie = {
    'set-cookie': `${INNER_COOKIE}${providerState}=true; Path=/; Expires=${expires}; Max-Age=${OUTER_FLOW_MILLIS / 1000}; HttpOnly`,
  };
  return redirect(location, cookie);
}

/**
 * Known errors of the callback go back to the client, as the service sends them: to its redirect URI when trusted, else
 * to its error URL when trusted, else they are answered as usual.
 */
function redirectOrThrow(error: KnownError, p: ProjectRecord, flow: OAuthFlowRecord): Reply {
  const trusted = [flow.redirect_uri, flow.error_redirect_url].find(
    (candidate): candidate is string => candidate !== null && isTrustedRedirectUrl(candidate, trustPolicy(p)),
  );
  if (trusted === undefined) throw error;
  const body = serviceErrorBody(error);
  const target = new URL(trusted);
  target.searchParams.set('error', 'server_error');
  target.searchParams.set('error_description', body.error);
  target.searchParams.set('errorCode', error.code);
  target.searchParams.set('message', body.error);
  target.searchParams.set('details', JSON.stringify(body.details ?? {}));
  return redirect(target.toString());
}

function storeTokens(account: OAuthAccountRecord, grant: ProviderGrant): void {
  account.tokens.push({
    access_token: grant.access_token,
    refresh_token: grant.refresh_token,
    scopes: [...grant.scopes],
    expires_at_millis: grant.expires_at_millis,
  });
  if (account.tokens.length > MAX_TOKENS_PER_ACCOUNT)
    account.tokens.splice(0, account.tokens.length - MAX_TOKENS_PER_ACCOUNT);
}

function accountOf(user: UserRecord, providerId: string, accountId: string): OAuthAccountRecord | undefined {
  return user.oauth_accounts.find((a) => a.provider_id === providerId && a.account_id === accountId);
}

/** Who signs in (or gets linked) for this provider account (PROTOCOL.md §6.9 step 4). Synchronous. */
function resolveAccount(
  p: ProjectRecord,
  flow: OAuthFlowRecord,
  grant: ProviderGrant,
  now: number,
): { user: UserRecord; isNewUser: boolean } {
  const { account } = grant;
  const providerId = flow.provider_id;
  // Only an account that allows sign-in signs its user in (or keeps another user from linking it).
  const signingIn = signInAccount(p, providerId, account.account_id);
  const attach = (user: UserRecord) => {
    const record = newOAuthAccount(
      { provider_id: providerId, account_id: account.account_id, email: account.email },
      now,
    );
    user.oauth_accounts.push(record);
    storeTokens(record, grant);
  };

  if (flow.type === 'link') {
    const user = flow.link_user_id === null ? undefined : findUser(p, flow.link_user_id);
    if (!user) throw createKnownError('USER_NOT_FOUND');
    if (signingIn && signingIn.user.id !== user.id)
      throw createKnownError('OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER');
    // A second account of a provider is linked beside the first, as the service does.
    const existing = signingIn?.account ?? accountOf(user, providerId, account.account_id);
    if (existing) storeTokens(existing, grant);
    else attach(user);
    return { user, isNewUser: false };
  }

  if (signingIn) {
    storeTokens(signingIn.account, grant);
    return { user: signingIn.user, isNewUser: false };
  }

  // A new provider account. Merging into an existing account is not a sign-up, so it comes first.
  let emailAuthEnabled = true;
  const taken = authChannelByEmail(p, account.email);
  if (taken) {
    const strategy = p.config.oauth_account_merge_strategy;
    const alreadyUsed = () =>
      createKnownError('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', {
        type: 'email',
        contact_channel_value: account.email,
      });
    if (strategy === 'raise_error') throw alreadyUsed();
    if (strategy === 'link_method') {
      // Both sides must vouch for the address, or whoever controls the provider account could take the user over.
      if (!taken.is_verified || !account.email_verified) throw alreadyUsed();
      const existing = findUser(p, taken.user_id);
      if (!existing) throw alreadyUsed();
      if (existing.oauth_accounts.some((a) => a.provider_id === providerId))
        throw createKnownError('USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION');
      attach(existing);
      return { user: existing, isNewUser: false };
    }
    // allow_duplicates: a second user whose e-mail does not sign in.
    emailAuthEnabled = false;
  }
  if (!p.config.sign_up_enabled) throw createKnownError('SIGN_UP_NOT_ENABLED');
  // Started by an anonymous user (its token in the authorize URL), the sign-up upgrades that user.
  const current = flow.link_user_id === null ? null : (findUser(p, flow.link_user_id) ?? null);
  const user = signUpOrUpgrade(
    p,
    current,
    {
      display_name: account.display_name,
      profile_image_url: account.profile_image_url,
      primary_email: account.email,
      primary_email_verified: account.email_verified,
      primary_email_auth_enabled: emailAuthEnabled,
      login_method: providerId,
    },
    now,
  );
  attach(user);
  return { user, isNewUser: true };
}

async function callback(
  req: ApiRequest,
  p: ProjectRecord,
  flow: OAuthFlowRecord,
  state: string,
  fields: Record<string, unknown>,
): Promise<Reply> {
  try {
    if (flow.created_at_millis + OUTER_FLOW_MILLIS < req.now) throw createKnownError('OUTER_OAUTH_TIMEOUT');
    const providerId = req.params.provider_id!;
    if (!enabledProvider(p, providerId)) throw createKnownError('OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED');
    const providerError = typeof fields.error === 'string' ? fields.error : undefined;
    if (providerError === 'access_denied' || providerError === 'consent_required')
      throw createKnownError('OAUTH_PROVIDER_ACCESS_DENIED');
    if (providerError !== undefined)
      throw new StatusError(
        400,
        `Inner OAuth callback failed: the provider answered "${providerError}". Please try again.`,
      );
    const code = typeof fields.code === 'string' ? fields.code : '';
    const exchanged = await exchangeCode(req, p, flow, providerId, code);
    if (!exchanged.ok && exchanged.error === 'invalid_client') {
      throw new StatusError(
        400,
        'Invalid client credentials for this OAuth provider. Please ensure the configuration in the Stack Auth dashboard is correct.',
      );
    }
    if (!exchanged.ok)
      throw new StatusError(400, 'Inner OAuth callback failed due to invalid grant. Please try again.');
    // An external provider answers asynchronously: the flow may have ended meanwhile (a second callback).
    if (own(p.oauth_flows, state) !== flow)
      throw new StatusError(400, 'Invalid OAuth cookie. Please try signing in again.');
    // The provider code is spent, so the flow is over whatever happens next.
    delete p.oauth_flows[state];
    // The OAuth library checks the client's redirect URI and scope before it asks who the user is.
    if (!isTrustedRedirectUrl(flow.redirect_uri, trustPolicy(p)))
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    if ((flow.scope ?? 'legacy') !== 'legacy')
      throw new StatusError(400, 'Invalid scope requested. Please check the scopes you are requesting.');
    const { user, isNewUser } = resolveAccount(p, flow, exchanged.grant, req.now);
    const authorizationCode = randomBytes(20).toString('hex');
    const codeHash = sha256Hex(authorizationCode);
    p.authorization_codes[codeHash] = {
      code_hash: codeHash,
      user_id: user.id,
      redirect_uri: flow.redirect_uri,
      code_challenge: flow.code_challenge,
      code_challenge_method: flow.code_challenge_method,
      is_new_user: isNewUser,
      after_callback_redirect_url: flow.after_callback_redirect_url,
      expires_at_millis: req.now + AUTHORIZATION_CODE_MILLIS,
      used: false,
      provider_id: providerId,
    };
    const target = new URL(flow.redirect_uri);
    target.searchParams.set('code', authorizationCode);
    target.searchParams.set('state', flow.client_state);
    // The service's OAuth server answers 302, which it turns into a 303 with an empty JSON body.
    return { kind: 'json', status: 303, body: {}, headers: { location: target.toString() } };
  } catch (error) {
    if (error instanceof KnownError) return redirectOrThrow(error, p, flow);
    throw error;
  }
}

/** OAuth authorize and callback (PROTOCOL.md §5.2, §6.9); the token endpoint is in oauthToken.ts. */
export function registerOAuthRoutes(router: Router): void {
  router.add('GET', '/auth/oauth/authorize/:provider_id', authorize, { write: true });

  const handleCallback = async (req: ApiRequest): Promise<Reply> => {
    const body =
      typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
        ? (req.body as Record<string, unknown>)
        : {};
    const fields: Record<string, unknown> = { ...req.query, ...body };
    const state =
      typeof req.query.state === 'string' ? req.query.state : typeof body.state === 'string' ? body.state : '';
    const p = req.env.store.projects().find((candidate) => own(candidate.oauth_flows, state) !== undefined);
    const flow = p === undefined ? undefined : own(p.oauth_flows, state);
    if (!p || !flow) throw new StatusError(400, 'Invalid OAuth state. Please try signing in again.');
    // A browser-redirect flow's inner cookie is checked and deleted whatever the outcome; a JSON-mode flow has none.
    const clear: Record<string, string> =
      flow.response_mode === 'json'
        ? {}
        : { 'set-cookie': `${INNER_COOKIE}${state}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT` };
    let reply: Reply;
    try {
      if (flow.response_mode !== 'json' && req.cookies[`${INNER_COOKIE}${state}`] !== 'true') {
        throw new StatusError(
          400,
          'Inner OAuth cookie not found. This is likely because you refreshed the page during the OAuth sign in process. Please try signing in again',
        );
      }
      reply = await callback(req, p, flow, state, fields);
    } catch (error) {
      reply = errorReply(error, req.env.log);
    }
    return { ...reply, headers: { ...reply.headers, ...clear } };
  };
  router.add(['GET', 'POST'], '/auth/oauth/callback/:provider_id', handleCallback, { write: true });
}
