import { hashPassword } from '../crypto.js';
import type { EmulatorState, ProjectRecord } from './model.js';
import { STATE_VERSION } from './model.js';
import { createApiKeyRecord, createProjectRecord } from './projects.js';
import { createUser } from './users.js';
import { seedDashboardPlans } from './dashboardPlans.js';
import { seedDemoShop } from './demoShop.js';

/** Keys of a seeded project; development values, printed at start. */
export interface ProjectKeys {
  id: string;
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
}

export interface SeedUser {
  email: string;
  password: string;
  displayName: string;
}

export const DEFAULT_DEMO_PROJECT: ProjectKeys = {
  id: '27581ab5-090d-4de0-a603-9893113cd548',
  publishableClientKey: 'pck_xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb',
  secretServerKey: 'ssk_frrbnfgmqf7rsbqfb4ga8b19kpbjwq7ser6f19xgn5y3w',
  superSecretAdminKey: 'sak_axbqfptnj87wg8wbe4v9bynfa49t5d2jnfnmpjf2etm3b',
};

export const DEFAULT_INTERNAL_PROJECT: ProjectKeys = {
  id: 'internal',
  publishableClientKey: 'pck_ghjz2820y3gpvvh5jbstj4exk86wy9cerws035wdpnmvv',
  secretServerKey: 'ssk_yjngp4jm355mywt0mbhrzm55g7f4x1jjkxaxv1dxpp9q4',
  superSecretAdminKey: 'sak_deragn72p8ybdvq5wmsajp9padymxpbzjzwg817v8fqz2',
};

export const DEFAULT_DEMO_USER: SeedUser = {
  email: 'demo@authbroker.dev',
  password: 'demo-password',
  displayName: 'Demo User',
};
/** Owns the demo project in the `internal` project, so the demo's admin area can sign in as them. */
export const DEFAULT_ADMIN_USER: SeedUser = {
  email: 'admin@authbroker.dev',
  password: 'admin-password',
  displayName: 'Project Owner',
};

/**
 * Where the demo extension's social sign-in comes back to (`identity.getRedirectURL()`): in Chromium a
 * host named by the extension's id, which its manifest's `key` fixes; in Firefox one named by the
 * SHA-1 of its add-on id, `demo-extension@authbroker.dev`. The demo project trusts both, so that the
 * demo extension signs in with a provider as started; a real project adds its own extension's
 * (docs/guide/browser-extension.md). Those hosts reach no one but that extension's sign-in window.
 */
export const DEMO_EXTENSION_REDIRECT_ORIGINS = [
  'https://nkfhlofegonjdoefllidhjigbpeabaen.chromiumapp.org',
  'https://9ee4577a57c615f316290db948e5401f7eae6b0b.extensions.allizom.org',
] as const;

/** Mock providers of the demo project: `standard` so connected-account tokens work. */
export const DEMO_OAUTH_PROVIDERS = ['github', 'google'] as const;

export interface SeedOptions {
  demo: ProjectKeys;
  internal: ProjectKeys;
  demoUser: SeedUser | null;
  adminUser: SeedUser;
  now: number;
}

const KEYS_EXPIRE = Date.UTC(2099, 11, 31);

/**
 * scrypt hashes of the default seed passwords, computed once ahead of time: hashing them at every
 * start would cost most of the start-up budget. Any other password is hashed at start.
 */
const PRECOMPUTED_HASHES: Readonly<Record<string, string>> = {
  'demo-password': 'scrypt$16384$8$1$1ePjcUbmxwQsvzh_cz6_fg$5Z320kZkOsysz6iQ-bGuZUeagGvgQlw_1veRn8l0E2w',
  'admin-password': 'scrypt$16384$8$1$HM3f-GFZ4dep7kL0ZUJLAA$a3BoSe4hJDGvcEjwwX1UtY-0hwapneg-hMK4BNd9qyE',
};

function seedHash(password: string): Promise<string> {
  const known = PRECOMPUTED_HASHES[password];
  return known === undefined ? hashPassword(password) : Promise.resolve(known);
}

/**
 * The service's dashboard project keeps the new-project team permissions but narrows what they contain (its seed):
 * members read members; admins also remove them and update the team. Neither may invite or manage API keys.
 */
function narrowDashboardTeamPermissions(internal: ProjectRecord): void {
  internal.permission_definitions.team_member = {
    id: 'team_member',
    description: '1',
    contained_permission_ids: ['$read_members'],
  };
  internal.permission_definitions.team_admin = {
    id: 'team_admin',
    description: '2',
    contained_permission_ids: ['$read_members', '$remove_members', '$update_team'],
  };
}

/** A fresh state: the `internal` project (PROTOCOL.md §12.2) and a demo project ready for every flow. */
export async function seedState(options: SeedOptions): Promise<EmulatorState> {
  const { now } = options;
  const [internal, demo, adminHash, demoHash] = await Promise.all([
    createProjectRecord(
      {
        id: 'internal',
        display_name: 'Stack Dashboard',
        config: {
          allow_localhost: true,
          credential_enabled: true,
          magic_link_enabled: true,
          sign_up_enabled: true,
          client_team_creation_enabled: true,
          // As the service's dashboard project: each new account gets a team to own its projects.
          create_team_on_sign_up: true,
          oauth_providers: ['github', 'google', 'microsoft', 'spotify'].map((id) => ({ id, type: 'shared' as const })),
        },
      },
      now,
    ),
    createProjectRecord(
      {
        id: options.demo.id,
        display_name: 'Authbroker Demo',
        description: 'Seeded by the authbroker emulator',
        config: {
          allow_localhost: true,
          sign_up_enabled: true,
          credential_enabled: true,
          magic_link_enabled: true,
          passkey_enabled: true,
          client_team_creation_enabled: true,
          client_user_deletion_enabled: true,
          domains: DEMO_EXTENSION_REDIRECT_ORIGINS.map((domain) => ({ domain, handler_path: '/handler' })),
          oauth_providers: DEMO_OAUTH_PROVIDERS.map((id) => ({
            id,
            type: 'standard' as const,
            client_id: `emulator-${id}-client`,
            client_secret: `emulator-${id}-secret`,
          })),
          email_config: {
            type: 'standard',
            host: 'mailbox.emulator.invalid',
            port: 587,
            username: 'emulator',
            password: 'emulator',
            sender_name: 'Authbroker Demo',
            sender_email: 'noreply@authbroker.dev',
          },
        },
      },
      now,
    ),
    seedHash(options.adminUser.password),
    options.demoUser === null ? Promise.resolve(null) : seedHash(options.demoUser.password),
  ]);
  for (const [project, keys] of [
    [internal, options.internal],
    [demo, options.demo],
  ] as const) {
    project.api_keys.push(
      createApiKeyRecord(
        {
          description: 'Seeded by the emulator',
          expires_at_millis: KEYS_EXPIRE,
          secrets: {
            publishable_client_key: keys.publishableClientKey,
            secret_server_key: keys.secretServerKey,
            super_secret_admin_key: keys.superSecretAdminKey,
          },
        },
        now,
      ),
    );
  }
  narrowDashboardTeamPermissions(internal);
  seedDashboardPlans(internal);
  seedDemoShop(demo);
  createUser(
    internal,
    {
      display_name: options.adminUser.displayName,
      primary_email: options.adminUser.email,
      primary_email_verified: true,
      primary_email_auth_enabled: true,
      password_hash: adminHash,
      server_metadata: { managedProjectIds: ['internal', demo.id] },
      login_method: 'password',
    },
    now,
  );
  if (options.demoUser !== null) {
    createUser(
      demo,
      {
        display_name: options.demoUser.displayName,
        primary_email: options.demoUser.email,
        primary_email_verified: true,
        primary_email_auth_enabled: true,
        password_hash: demoHash,
        login_method: 'password',
      },
      now,
    );
  }
  return { format: 'authbroker-emulator', version: STATE_VERSION, projects: { internal, [demo.id]: demo } };
}
