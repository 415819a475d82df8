import { createHash } from 'node:crypto';
import { createKnownError } from '../../protocol/errors/create.js';
import { issueTokens, refreshTokenFor, requireSecondFactor } from '../auth/issue.js';
import { clientSecretProblem, projectOfClientId } from '../auth/oauthClient.js';
import { sha256Hex } from '../crypto.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest, type Reply } from '../http/types.js';
import { schemaError } from '../http/validate.js';
import type { ProjectRecord } from '../state/model.js';
import { findSessionByRefreshToken } from '../state/sessions.js';
import { findUser } from '../state/users.js';

/** The library's nominal lifetime the service reports, not the JWT's real one (PROTOCOL.md §3.3). */
const NOMINAL_EXPIRES_IN = 3599;
const oauthHeaders = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** An RFC 6749 error body (not a known error), as the OAuth library answers. */
function oauthError(error: string, description: string, status = 400): Reply {
  return { kind: 'json', status, body: { error, error_description: description }, headers: oauthHeaders };
}

function field(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The OAuth client: the project id and one of its publishable keys, in the body or Basic auth. */
function authenticateClient(req: ApiRequest, body: Record<string, unknown>): ProjectRecord {
  let clientId = field(body, 'client_id');
  let clientSecret = field(body, 'client_secret');
  const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      clientId = decodeURIComponent(decoded.slice(0, colon));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1));
    }
  }
  const project = clientId === undefined ? undefined : projectOfClientId(req.env.store, clientId);
  // Without a secret, a project that requires publishable keys says so before the client check fails.
  const problem =
    project === undefined
      ? 'invalid'
      : clientSecret === undefined
        ? project.config.require_publishable_client_key === true
          ? 'required'
          : 'invalid'
        : clientSecretProblem(project, clientSecret, req.now);
  if (project && problem === 'required')
    throw createKnownError('PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT', { project_id: project.id });
  if (!project || problem !== null) throw createKnownError('INVALID_OAUTH_CLIENT_ID_OR_SECRET', { client_id: null });
  return project;
}

function pkceMatches(challenge: string, method: 'S256' | 'plain', verifier: string): boolean {
  if (method === 'plain') return challenge === verifier;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

/** `POST /auth/oauth/token`: the refresh-token and authorization-code grants (PROTOCOL.md §3.3). */
export function registerOAuthTokenRoute(router: Router): void {
  router.add('POST', '/auth/oauth/token', async (req) => {
    const body = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw schemaError(req, ['body must be defined']);
    const fields = body as Record<string, unknown>;
    const grantType = fields.grant_type;
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw schemaError(req, [
        'body.grant_type must be one of the following values: authorization_code, refresh_token',
      ]);
    }
    const p = authenticateClient(req, fields);

    if (grantType === 'refresh_token') {
      const refreshToken = field(fields, 'refresh_token');
      if (refreshToken === undefined) return oauthError('invalid_request', 'Missing parameter: `refresh_token`');
      const scope = field(fields, 'scope');
      if (scope !== undefined && scope !== 'legacy') return oauthError('invalid_scope', 'Invalid parameter: `scope`');
      const session = findSessionByRefreshToken(p, refreshToken, req.now);
      const user = session ? findUser(p, session.user_id) : undefined;
      if (!session || !user) throw createKnownError('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
      const accessToken = await refreshTokenFor(req.env, p, user, session.id, req.now);
      req.env.stats.tokenGrant('refresh_token');
      // The service answers a renewal with the code grant's two redirect fields too, always null.
      return json(
        {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: NOMINAL_EXPIRES_IN,
          scope: 'legacy',
          after_callback_redirect_url: null,
          afterCallbackRedirectUrl: null,
        },
        200,
        oauthHeaders,
      );
    }

    const code = field(fields, 'code');
    if (code === undefined) return oauthError('invalid_request', 'Missing parameter: `code`');
    const redirectUri = field(fields, 'redirect_uri');
    if (redirectUri === undefined) return oauthError('invalid_request', 'Missing parameter: `redirect_uri`');
    try {
      new URL(redirectUri);
    } catch {
      return oauthError('invalid_request', 'Invalid parameter: `redirect_uri`');
    }
    const record = p.authorization_codes[sha256Hex(code)];
    if (!record || record.used || record.expires_at_millis <= req.now)
      throw createKnownError('INVALID_AUTHORIZATION_CODE');
    const verifier = field(fields, 'code_verifier');
    if (
      record.code_challenge !== '' &&
      (verifier === undefined || !pkceMatches(record.code_challenge, record.code_challenge_method, verifier))
    ) {
      throw createKnownError('INVALID_AUTHORIZATION_CODE');
    }
    if (redirectUri.split('#')[0] !== record.redirect_uri)
      throw new StatusError(
        400,
        'Invalid redirect URI. Your redirect URI must be the same as the one used to get the authorization code.',
      );
    record.used = true;
    const user = findUser(p, record.user_id);
    if (!user) throw createKnownError('INVALID_AUTHORIZATION_CODE');
    requireSecondFactor(p, user, req.now, record.is_new_user);
    const tokens = await issueTokens(
      req.env,
      p,
      user,
      req.now,
      record.provider_id === undefined ? {} : { method: record.provider_id },
    );
    req.env.stats.tokenGrant('authorization_code');
    return json(
      {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        token_type: 'Bearer',
        expires_in: NOMINAL_EXPIRES_IN,
        scope: 'legacy',
        is_new_user: record.is_new_user,
        newUser: record.is_new_user,
        after_callback_redirect_url: record.after_callback_redirect_url,
        afterCallbackRedirectUrl: record.after_callback_redirect_url,
      },
      200,
      oauthHeaders,
    );
  });
}
