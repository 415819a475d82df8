/**
 * What a tab may ask of the broker, and what it gets back: the one agreement between the two
 * sides. The broker serves exactly these methods (`methods.ts` gives each its role, `arguments.ts`
 * checks its arguments); the tab's client derives its actions from the same list.
 */
import type { EmailTemplateType } from '../protocol/resources/admin.js';
import type { Json } from '../protocol/resources/common.js';
import type {
  AdminProjectModel,
  ApiKey,
  ApiKeyWithSecrets,
  ContactChannelModel,
  CreatedTeamApiKeyModel,
  CreatedUserApiKeyModel,
  EmailTemplateModel,
  NotificationPreferenceModel,
  OAuthProviderModel,
  PermissionDefinition,
  ProjectUpdateModel,
  Team,
  TeamApiKeyModel,
  TeamInvitationDetailsModel,
  TeamMember,
  User,
  UserApiKeyModel,
} from '../protocol/models.js';
import type { AppRequest, AppResponse, AppToken } from './appRequests.js';
import type { AuthHeaders } from '../protocol/authHeaders.js';
import type { PartialUser } from '../protocol/partialUser.js';
import type { BillableCustomer, Customer } from '../protocol/paymentModels.js';
import type { DataOf, QuerySpec } from './queries.js';
import type { QuerySnapshot } from './snapshot.js';
import type { BrokerStatus } from './state.js';

/** Sign-in either completes or needs the second factor (TOTP). Other problems are thrown. */
export type SignInResult = SignedInResult | { status: 'mfa-required'; attemptCode: string };

/** A sign-in that completed: what a method that never asks for the second factor answers. */
export type SignedInResult = { status: 'signed-in'; userId: string; isNewUser: boolean };

/**
 * How an OAuth callback ended: signed in (or an account linked), or the second factor is needed; with where the
 * app asked to go next.
 */
export type OAuthResult =
  | {
      status: 'signed-in';
      userId: string;
      isNewUser: boolean;
      type: 'authenticate' | 'link';
      afterCallbackRedirectUrl: string | null;
    }
  | {
      status: 'mfa-required';
      attemptCode: string;
      type: 'authenticate' | 'link';
      afterCallbackRedirectUrl: string | null;
    };

/**
 * The fields of the signed-in user a tab may change (see {@link BrokerApi.updateUser}); only those given are written.
 */
export interface UserUpdate {
  displayName?: string | null;
  /** A data URL (or bare base64) image. */
  profileImageUrl?: string | null;
  clientMetadata?: Json;
  otpAuthEnabled?: boolean;
  /** Only false does anything: it removes the passkey. */
  passkeyAuthEnabled?: false;
  /** Enables TOTP with this secret (the raw bytes, e.g. 20 random ones), or disables it with null. */
  totpSecret?: Uint8Array | null;
  selectedTeamId?: string | null;
}

/** The fields of a team its members with the right permission may change. */
export interface TeamUpdate {
  displayName?: string;
  profileImageUrl?: string | null;
  clientMetadata?: Json;
}

/**
 * How confirming a CLI login ended (`confirmCliLogin`): `confirmed`, the CLI has this browser's
 * session; `sign-in-required`, nobody is signed in (an anonymous user counts as nobody): sign in, then
 * confirm again; `sign-up-required`, the CLI's own anonymous user is now signed in here (every tab):
 * sign up to keep it as a real account (the same user), then confirm again.
 */
export type CliLoginConfirmation =
  | { status: 'confirmed'; userId: string }
  | { status: 'sign-in-required' }
  | { status: 'sign-up-required'; userId: string };

export type { AuthHeaders } from '../protocol/authHeaders.js';
export type { PartialUser } from '../protocol/partialUser.js';

/** A new API key of a user or team: what it is for, and when it stops working (null: never). */
export interface ApiKeyInput {
  description: string;
  expiresAtMillis: number | null;
  /** A public key (`pk_…`) is not reported by secret scanners; default false (`sk_…`). */
  isPublic?: boolean;
}

/** What may change of one of the user's OAuth providers: whether it signs them in, whether it gives provider tokens. */
export interface OAuthProviderUpdate {
  allowSignIn?: boolean;
  allowConnectedAccounts?: boolean;
}

/** Admin calls act on the broker's project unless another project of the owner is named. */
export type AdminOptions = { projectId?: string };

/**
 * The tab's handler pages (absolute URLs of its origin). The broker fills a callback URL the app
 * left out (sign-up verification, magic link, password reset, e-mail verification, invitation)
 * from the calling tab's own pages, as the official SDK does.
 */
export interface TabHandlerUrls {
  emailVerification: string;
  passwordReset: string;
  magicLinkCallback: string;
  teamInvitation: string;
}

/** Everything a tab can ask of the broker. Every argument is checked here: a bad one is an InvalidArgumentError. */
export interface BrokerApi {
  // ── the broker itself
  /** The broker's status now: its host, session, connectivity, tabs and warnings. */
  status(): Promise<BrokerStatus>;
  /** Starts pushing a query's snapshots to this tab's listener; returns the current one. */
  subscribe(subscriptionId: string, query: QuerySpec): Promise<QuerySnapshot>;
  /** Stops pushing a query's snapshots to this tab. */
  unsubscribe(subscriptionId: string): Promise<void>;
  /** A query's data through the cache (fetched when not cached). */
  read<Q extends QuerySpec>(query: Q): Promise<DataOf<Q>>;
  /** Refetches a query now (within the throttle). */
  refetch(query: QuerySpec): Promise<void>;
  /** What the tab's window knows and the worker cannot see: `online`/`offline`, visibility. */
  reportBrowserState(state: { online?: boolean; visible?: boolean }): Promise<void>;
  /** The tab is leaving (pagehide): release its subscriptions now. */
  goodbye(): Promise<void>;
  /**
   * The tab now holds this Web Lock for its whole life: when the broker can take it, the tab is gone.
   * Sent after connecting (rather than in the hello) so that a new tab never waits for its lock first.
   * Answers with the broker's own lifetime lock, for the tab to wait on the same way (granted: the
   * broker's worker is gone), or null where the broker lives in the page itself.
   */
  watchLifetime(lockName: string): Promise<string | null>;
  /** For the app's own backend calls (`x-stack-access-token`). Never the refresh token. */
  getAccessToken(): Promise<string | null>;
  /**
   * What is wrong with the configuration tabs pass (an unknown project id, a refused publishable key), each a
   * sentence naming the option to fix: the broker reads the project once to find out. Empty when nothing is.
   */
  configProblems(): Promise<string[]>;

  // ── signing in and out
  /** `verificationCallbackUrl` defaults to the tab's e-mail verification page. */
  signUpWithPassword(input: {
    email: string;
    password: string;
    verificationCallbackUrl?: string;
  }): Promise<SignInResult>;
  /**
   * Signs in with e-mail and password; every tab sees the user at once. `EMAIL_PASSWORD_MISMATCH` when they do not
   * match.
   */
  signInWithPassword(input: { email: string; password: string }): Promise<SignInResult>;
  /**
   * Signs up an anonymous user (no e-mail, no password) when nobody is signed in, and answers with
   * the user signed in now (`isNewUser` says which). A sign-up made later while it is signed in
   * (password, magic link or OTP, OAuth) upgrades it: the same user id, data and teams.
   */
  signUpAnonymously(): Promise<SignedInResult>;
  /** `callbackUrl` defaults to the tab's magic-link page. */
  sendMagicLink(input: { email: string; callbackUrl?: string }): Promise<{ nonce: string }>;
  /** The `code` of a magic link. */
  signInWithMagicLink(code: string): Promise<SignInResult>;
  /** A typed 6-character code with the nonce `sendMagicLink` returned. */
  signInWithOtp(input: { otp: string; nonce: string }): Promise<SignInResult>;
  /** Finishes a sign-in that answered `mfa-required`, with the 6-digit code of the user's authenticator app. */
  signInWithMfa(input: { attemptCode: string; totp: string }): Promise<SignInResult>;
  /** The first step of registering a passkey (the client's `registerPasskey` runs both steps). */
  beginPasskeyRegistration(): Promise<{ optionsJson: Record<string, Json>; code: string }>;
  /** The second step of registering a passkey, with the browser's new credential. */
  finishPasskeyRegistration(input: { credential: Record<string, Json>; code: string }): Promise<void>;
  /** The first step of a passkey sign-in (the client's `signInWithPasskey` runs both steps). */
  beginPasskeySignIn(): Promise<{ optionsJson: Record<string, Json>; code: string }>;
  /** The second step of a passkey sign-in, with the browser's assertion. */
  finishPasskeySignIn(input: { response: Record<string, Json>; code: string }): Promise<SignInResult>;
  /** The authorize URL to navigate to; the flow's secrets stay in the broker. */
  startOAuth(input: {
    providerId: string;
    redirectUri: string;
    type?: 'authenticate' | 'link';
    /** Extra provider scopes (e.g. for connected-account tokens). */
    scopes?: string[];
    errorRedirectUrl?: string;
    afterCallbackRedirectUrl?: string;
  }): Promise<{ url: string }>;
  /** Completes a flow from its callback URL, in whichever tab the callback landed. */
  completeOAuth(input: { callbackUrl: string }): Promise<OAuthResult>;
  /** Signs out every tab: the session ends on the service too (sent later if offline). */
  signOut(): Promise<void>;

  // ── passwords
  /** `callbackUrl` defaults to the tab's password-reset page. */
  sendPasswordResetEmail(input: { email: string; callbackUrl?: string }): Promise<void>;
  /**
   * Checks a password-reset link's code before asking for a new password (`VERIFICATION_CODE_*` errors when it
   * cannot be used).
   */
  checkPasswordResetCode(code: string): Promise<void>;
  /** Sets a new password with a password-reset link's code. */
  resetPassword(input: { code: string; password: string }): Promise<void>;
  /** Changes the signed-in user's password, given the current one. */
  updatePassword(input: { oldPassword: string; newPassword: string }): Promise<void>;
  /** Gives a password to a signed-in user who has none (signed up by link, code, passkey or OAuth). */
  setPassword(input: { password: string }): Promise<void>;

  // ── the signed-in user
  /** Changes the signed-in user; answers with the user as now stored. */
  updateUser(update: UserUpdate): Promise<User>;
  /** The team the user works in (`selectedTeamId`), or none. */
  setSelectedTeam(teamId: string | null): Promise<User>;
  /** Deletes the signed-in user's account for good, and signs every tab out. */
  deleteUser(): Promise<void>;
  /** Adds an e-mail address to the signed-in user (optionally one they can sign in with). */
  createContactChannel(input: {
    email: string;
    usedForAuth: boolean;
    isPrimary?: boolean;
  }): Promise<ContactChannelModel>;
  /** Changes one of the signed-in user's e-mail addresses. */
  updateContactChannel(
    channelId: string,
    update: { email?: string; usedForAuth?: boolean; isPrimary?: boolean },
  ): Promise<ContactChannelModel>;
  /** Removes one of the signed-in user's e-mail addresses. */
  deleteContactChannel(channelId: string): Promise<void>;
  /** `callbackUrl` defaults to the tab's e-mail verification page. */
  sendContactChannelVerification(channelId: string, callbackUrl?: string): Promise<void>;
  /** Verifies an e-mail address with the code of its verification link. */
  verifyEmail(code: string): Promise<void>;
  /** Checks an e-mail verification link's code without using it. */
  checkEmailVerificationCode(code: string): Promise<void>;
  /** Ends one of the signed-in user's other sessions (another device or browser). */
  revokeSession(sessionId: string): Promise<void>;
  /**
   * A provider access token covering `scopes` (OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE when the link lacks them).
   */
  getConnectedAccountAccessToken(
    providerId: string,
    options?: {
      scopes?: string[];
      /** One account's token, when the user linked several accounts of the provider. */
      providerAccountId?: string;
    },
  ): Promise<{ accessToken: string }>;
  /** Whether the user gets a notification category's e-mails (the category's id from `notificationPreferences`). */
  updateNotificationPreference(categoryId: string, update: { enabled: boolean }): Promise<NotificationPreferenceModel>;

  // ── teams
  /** Creates a team with the signed-in user as its first member. */
  createTeam(input: { displayName: string; profileImageUrl?: string | null; clientMetadata?: Json }): Promise<Team>;
  /** Changes a team (needs the `$update_team` permission in it). */
  updateTeam(teamId: string, update: TeamUpdate): Promise<Team>;
  /** Deletes a team (needs the `$delete_team` permission in it). */
  deleteTeam(teamId: string): Promise<void>;
  /** The signed-in user leaves a team. */
  leaveTeam(teamId: string): Promise<void>;
  /** Removes another member from a team (needs the `$remove_members` permission in it). */
  removeTeamMember(teamId: string, userId: string): Promise<void>;
  /** Changes how the signed-in user appears in a team. */
  updateTeamProfile(
    teamId: string,
    update: { displayName?: string; profileImageUrl?: string | null },
  ): Promise<TeamMember>;
  /** `callbackUrl` defaults to the tab's team-invitation page. */
  inviteToTeam(input: { teamId: string; email: string; callbackUrl?: string }): Promise<{ invitationId: string }>;
  /** Withdraws an invitation, so its link no longer works. */
  revokeTeamInvitation(input: { teamId: string; invitationId: string }): Promise<void>;
  /** Joins the team of an invitation link's code, as the signed-in user. */
  acceptTeamInvitation(code: string): Promise<void>;
  /** Checks an invitation link's code without using it. */
  checkTeamInvitationCode(code: string): Promise<void>;
  /** The team an invitation link's code leads to (its name), to show before accepting. */
  getTeamInvitationDetails(code: string): Promise<TeamInvitationDetailsModel>;

  // ── the access token's own uses: the app's server, a partial user, CLI logins
  /**
   * The user as the broker's access token names it (its claims: id, name, e-mail, anonymous or
   * restricted…), read without asking the service; null when nobody is signed in, and for an
   * anonymous user unless `includeAnonymous`. An expired token is renewed first, as for any call.
   */
  getPartialUser(options?: { includeAnonymous?: boolean }): Promise<PartialUser | null>;
  /**
   * Headers for a call to the app's own server, as the official SDK's `getAuthHeaders()` makes them
   * (`x-stack-auth`: `{ accessToken, refreshToken: null }`); `authbroker/server`'s `verifyRequest`,
   * and the SDK's server, read them. Never a refresh token.
   */
  getAuthHeaders(): Promise<AuthHeaders>;
  /**
   * On the app's CLI confirmation page: gives the waiting CLI (or desktop app) of `loginCode` this
   * browser's session. The broker sends it to the service; no page ever holds it. With nobody signed
   * in, nothing is given: the answer says to sign in first, or, when the CLI brought an anonymous user
   * of its own, that this user is now signed in here, to be kept by signing up. CLI_LOGIN_INVALID
   * when the code is unknown, expired or confirmed already.
   */
  confirmCliLogin(loginCode: string): Promise<CliLoginConfirmation>;

  // ── the app's own API (`client.fetch`) and writes that wait out an outage (`offlineWrites`)
  /**
   * The access token for a `client.fetch` call, with how long the tab may reuse it. `refused`: the app's API answered
   * 401 to this token: it is renewed (once, however many tabs say so at once) unless it is brand new. TOKEN_WITHHELD
   * when the service worker attaches tokens itself (`appRequests.attachInServiceWorker`).
   */
  appToken(refused?: string): Promise<AppToken>;
  /**
   * A queueable `client.fetch` call, sent by the broker: now, or, while the device is offline or the service
   * unreachable, kept in IndexedDB and sent in order once the service answers again (`offlineWrites`); the answer
   * comes when it was sent.
   */
  sendAppRequest(request: AppRequest): Promise<AppResponse>;
  /** Forgets a refused or dropped change of `usePendingChanges()`, once the app has shown it. */
  dismissPendingChange(id: string): Promise<void>;

  // ── the user's own API keys, its teams' keys, its OAuth providers and the invitations it received
  /**
   * Makes an API key for the signed-in user (the project must allow user API keys, `allowUserApiKeys`, else the
   * service's plain 400). Its `value` is the whole key, in this answer only: later reads show its last four characters.
   */
  createUserApiKey(input: ApiKeyInput): Promise<CreatedUserApiKeyModel>;
  /** Revokes one of the signed-in user's API keys, for good; answers with the key as now stored. */
  revokeUserApiKey(apiKeyId: string): Promise<UserApiKeyModel>;
  /**
   * Makes an API key for a team: the project must allow team API keys (`allowTeamApiKeys`) and the user needs
   * `$manage_api_keys` in the team (else API_KEY_NOT_FOUND). `value` is the whole key, this once.
   */
  createTeamApiKey(teamId: string, input: ApiKeyInput): Promise<CreatedTeamApiKeyModel>;
  /** Revokes one of a team's API keys, for good (needs `$manage_api_keys` in it). */
  revokeTeamApiKey(teamId: string, apiKeyId: string): Promise<TeamApiKeyModel>;
  /**
   * Lets one of the user's OAuth providers (a linked provider account, by its id in `oauthProviders`) sign them in or
   * not, and give the app provider tokens or not. At most one account per provider signs in.
   */
  updateOAuthProvider(oauthProviderId: string, update: OAuthProviderUpdate): Promise<OAuthProviderModel>;
  /** Unlinks one of the user's OAuth providers (a linked provider account) from them. */
  deleteOAuthProvider(oauthProviderId: string): Promise<void>;
  /**
   * Joins the team of an invitation the user received (by its id in `receivedTeamInvitations`): it must have been sent
   * to one of their verified addresses (else VERIFICATION_CODE_NOT_FOUND); restricted users may not join.
   */
  acceptTeamInvitationById(invitationId: string): Promise<void>;

  // ── payments: a customer is `{ userId }`, `{ teamId }` or `{ customCustomerId }`; a client reaches its own user and the
  // teams where it holds `team_admin`. The queries `item`, `products`, `billing` and `invoices` show what it has.
  /**
   * A checkout URL for a product of the project's configuration: the service's purchase page (the emulator's own in
   * test mode), which comes back to `returnUrl` (a trusted domain) when done; call `refreshPayments` there.
   * PRODUCT_ALREADY_GRANTED (as UNSUPPORTED_ERROR's `originalErrorCode`) when the customer owns it and it does not stack.
   */
  createCheckoutUrl(customer: BillableCustomer, options: { productId: string; returnUrl?: string }): Promise<string>;
  /** Cancels a subscription: the product stays the customer's until the end of the period paid for. */
  cancelSubscription(
    customer: BillableCustomer,
    options: { productId: string; subscriptionId?: string },
  ): Promise<void>;
  /** Moves a subscription to another plan of its product line (the service charges the card Stripe holds). */
  switchSubscription(
    customer: BillableCustomer,
    options: { fromProductId: string; toProductId: string; priceId?: string; quantity?: number },
  ): Promise<void>;
  /**
   * Refetches, in every tab at once, what is shown of a customer's items, products, billing and invoices: on the page a
   * checkout returns to, or after the app's server changed a quantity.
   */
  refreshPayments(customer: Customer): Promise<void>;

  // ── project administration (a project owner signed in to the `internal` project)
  /**
   * Signs a project owner in to the `internal` project, for the admin calls and queries (a session apart from
   * the app user's).
   */
  adminSignInWithPassword(input: { email: string; password: string }): Promise<SignInResult>;
  /** Finishes an owner's sign-in that answered `mfa-required`. */
  adminSignInWithMfa(input: { attemptCode: string; totp: string }): Promise<SignInResult>;
  /** Signs the project owner out (the app user's session stays). */
  adminSignOut(): Promise<void>;
  /** Creates a project owned by the signed-in owner. */
  adminCreateProject(input: {
    displayName: string;
    description?: string;
    config?: ProjectUpdateModel['config'];
  }): Promise<AdminProjectModel>;
  /** camelCase, like what it returns (`{ displayName, config: { signUpEnabled } }`). */
  adminUpdateProject(update: ProjectUpdateModel, options?: AdminOptions): Promise<AdminProjectModel>;
  /** Deletes the project for good (the broker's own, unless another is named). */
  adminDeleteProject(options?: AdminOptions): Promise<void>;
  /** Creates an API key set; its secrets are in this answer only, never again. */
  adminCreateApiKey(
    input: {
      description: string;
      expiresAtMillis: number;
      hasPublishableClientKey: boolean;
      hasSecretServerKey: boolean;
      hasSuperSecretAdminKey: boolean;
    },
    options?: AdminOptions,
  ): Promise<ApiKeyWithSecrets>;
  /** Revokes an API key set: its keys stop working at once. */
  adminRevokeApiKey(apiKeyId: string, options?: AdminOptions): Promise<ApiKey>;
  /** Changes an API key set's description. */
  adminUpdateApiKey(apiKeyId: string, update: { description: string }, options?: AdminOptions): Promise<ApiKey>;
  /** Changes an e-mail template's subject or content. */
  adminUpdateEmailTemplate(
    type: EmailTemplateType,
    update: { subject?: string; content?: Json },
    options?: AdminOptions,
  ): Promise<EmailTemplateModel>;
  /** Puts an e-mail template back to the service's default. */
  adminResetEmailTemplate(type: EmailTemplateType, options?: AdminOptions): Promise<void>;
  /** Defines a team permission (optionally containing others). */
  adminCreatePermissionDefinition(
    input: { id: string; description?: string; containedPermissionIds?: string[] },
    options?: AdminOptions,
  ): Promise<PermissionDefinition>;
  /** Changes a permission definition. */
  adminUpdatePermissionDefinition(
    permissionId: string,
    update: { id?: string; description?: string; containedPermissionIds?: string[] },
    options?: AdminOptions,
  ): Promise<PermissionDefinition>;
  /** Deletes a permission definition and every grant of it. */
  adminDeletePermissionDefinition(permissionId: string, options?: AdminOptions): Promise<void>;
  /** Sends a test e-mail through an SMTP configuration, to check it before using it. */
  adminSendTestEmail(
    input: {
      recipientEmail: string;
      emailConfig: {
        host: string;
        port: number;
        username: string;
        password: string;
        senderName: string;
        senderEmail: string;
      };
    },
    options?: AdminOptions,
  ): Promise<{ success: boolean; errorMessage?: string }>;
  /** A token for the project's webhook dashboard (Svix). */
  adminCreateSvixToken(options?: AdminOptions): Promise<{ token: string }>;
}

/** One batch of subscription updates for a tab. */
export type Delivery = Array<{ subscriptionId: string; snapshot: QuerySnapshot }>;

/** The tab's side of a connection: the broker pushes subscription updates here. */
export interface TabListener {
  /** Receives a batch of snapshots of the tab's subscriptions. */
  deliver(batch: Delivery): void;
  /**
   * Asks the tab over its own port: true when it answers, false when the port is known closed
   * (otherwise it may never settle). Absent where the tab cannot be asked (a broker in its page).
   */
  ping?(): Promise<boolean>;
}

/** What a tab tells the broker when it connects. */
export interface TabHello {
  /** Ignored by the broker, which numbers tabs itself (older tabs send one; it named their lock). */
  tabId?: string | undefined;
  /** Why this tab is not on a better host (a SharedWorker that failed to start…): shown in the broker's status. */
  warnings?: string[] | undefined;
  /** Where the tab's handler pages are, for callback URLs the app leaves out. */
  handlerUrls?: TabHandlerUrls | undefined;
  /** A Web Lock the tab holds for its whole life; the broker learns the tab is gone when it can take it. */
  lockName?: string | undefined;
  version: string;
}

/**
 * The first call on a fresh connection (the only method a worker's entry port serves): which
 * project, who is calling, and a port on which the broker pushes the tab's deliveries. The answer
 * is a port serving this tab's BrokerApi. Both ports are owned explicitly, so the broker can close
 * them when the tab is gone.
 */
export interface BrokerEntry {
  /**
   * Connects a tab: answers with a port serving its {@link BrokerApi}, or `STANDBY` (contract/wire.ts) from a worker
   * whose broker for this config serves its tabs elsewhere.
   */
  connect(config: unknown, hello: TabHello, listenerPort: MessagePort): Promise<MessagePort | 'authbroker:standby'>;
}
