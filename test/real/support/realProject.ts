import * as api from '../../../protocol/endpoints/index.js';
import type { AccessType } from '../../../protocol/resources/common.js';
import { createTransport, staticTokenSource, type Transport } from '../../../protocol/transport.js';
import { REAL_BACKEND_HEADERS, type ProjectTarget } from '../../support/serviceTarget.js';
import { FLOW_PROJECT_CONFIG } from '../differential/flows/project.js';

/**
 * A project of the real backend made as its dashboard makes one (an `internal` user signs up,
 * creates a project for their team, gives it keys), then set up as the emulator seeds its demo
 * project: the same sign-in methods on, GitHub and Google offered (shared keys, as the backend
 * has no provider of ours), and the demo user (`demo@authbroker.dev` / `demo-password`). The lane
 * makes one for its suites, and one per end-to-end scenario of test/e2e, which expects a fresh
 * service as the emulator gives each.
 */
export const DEMO_USER = { email: 'demo@authbroker.dev', password: 'demo-password', displayName: 'Demo User' } as const;

/** What the emulator's demo project has switched on (emulator/state/seed.ts), in today's shape. */
export const DEMO_PROJECT_CONFIG = {
  ...FLOW_PROJECT_CONFIG,
  oauth_providers: [
    { id: 'github', type: 'shared' as const },
    { id: 'google', type: 'shared' as const },
  ],
};

const OWNER_PASSWORD = 'Sup3r-secret-passw0rd!';
/** The backend compiles a route on its first request (10–60 s on 2 cores). */
const ATTEMPT_TIMEOUT_MILLIS = 600_000;

export interface RealBackend {
  baseUrl: string;
  /** The `internal` project's publishable key (its development default). */
  internalPublishableClientKey: string;
}

function transport<A extends AccessType>(
  backend: RealBackend,
  accessType: A,
  keys: Partial<ProjectTarget> & { projectId: string },
  tokens: { user?: string; admin?: string } = {},
): Transport<A> {
  return createTransport({
    baseUrl: backend.baseUrl,
    projectId: keys.projectId,
    accessType,
    publishableClientKey: keys.publishableClientKey,
    secretServerKey: keys.secretServerKey,
    superSecretAdminKey: keys.superSecretAdminKey,
    userTokens: tokens.user === undefined ? undefined : staticTokenSource(tokens.user),
    adminTokens: tokens.admin === undefined ? undefined : staticTokenSource(tokens.admin),
    extraRequestHeaders: REAL_BACKEND_HEADERS,
    attemptTimeoutMillis: ATTEMPT_TIMEOUT_MILLIS,
    diagnoseFailures: false,
  });
}

/** A fresh project with its four keys, configured like the emulator's demo project, its demo user in it. */
export async function createDemoProject(backend: RealBackend, label = 'authbroker lane'): Promise<ProjectTarget> {
  const internal = { projectId: 'internal', publishableClientKey: backend.internalPublishableClientKey };
  const owner = `project-owner-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
  const signedUp = await api.signUpWithPassword(transport(backend, 'client', internal), {
    email: owner,
    password: OWNER_PASSWORD,
    verification_callback_url: 'http://localhost:5173/handler/email-verification',
  });
  const asOwner = transport(backend, 'client', internal, { user: signedUp.access_token });
  const me = await api.getCurrentUser(asOwner);
  const project = await api.createProject(asOwner, {
    display_name: label,
    ...(me?.selected_team_id ? { owner_team_id: me.selected_team_id } : {}),
    config: { credential_enabled: true, allow_localhost: true, sign_up_enabled: true },
  });
  const keys = await api.createApiKey(
    transport(backend, 'admin', { projectId: project.id }, { admin: signedUp.access_token }),
    {
      description: label,
      expires_at_millis: Date.now() + 365 * 24 * 3600_000,
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: true,
    },
  );
  if (!keys.publishable_client_key || !keys.secret_server_key || !keys.super_secret_admin_key)
    throw new Error(`The backend made API keys without secrets: ${JSON.stringify(keys)}`);
  const target: ProjectTarget = {
    baseUrl: backend.baseUrl,
    projectId: project.id,
    publishableClientKey: keys.publishable_client_key,
    secretServerKey: keys.secret_server_key,
    superSecretAdminKey: keys.super_secret_admin_key,
  };
  await api.updateCurrentProject(transport(backend, 'admin', target), { config: DEMO_PROJECT_CONFIG });
  await api.createUser(transport(backend, 'server', target), {
    primary_email: DEMO_USER.email,
    primary_email_verified: true,
    primary_email_auth_enabled: true,
    password: DEMO_USER.password,
    display_name: DEMO_USER.displayName,
  });
  return target;
}
