/**
 * Stable `data-testid` values for end-to-end tests. Use these constants, never literal strings.
 *
 * Layout:     nav, nav-home, nav-teams, nav-account, nav-admin, nav-sign-in, nav-sign-up, nav-sign-out,
 *             nav-guest, current-user-email, page-title, not-found
 * Guests:     continue-as-guest (sign-in page), guest-notice, guest-upgrade (home), sign-up-upgrade-notice
 * Broker:     offline-banner, offline-diagnostics, stale-notice, session-end-notice, session-end-notice-dismiss
 *             (the broker's own view is authbroker/devtools, whose ids are its `devtoolsIds`)
 * Forms:      form-error, form-success (inside each form or card)
 * Sign in/up: sign-in-form, sign-in-email, sign-in-password, sign-in-submit, sign-in-tab-password,
 *             sign-in-tab-magic-link, sign-up-form, sign-up-email, sign-up-password,
 *             sign-up-password-confirm, sign-up-submit, magic-link-form, magic-link-email,
 *             magic-link-send, magic-link-sent, otp-form, otp-input, otp-submit, passkey-sign-in,
 *             passkey-unavailable (instead of passkey buttons where the browser has no WebAuthn),
 *             oauth-button-{provider} (oauthButton(id)), signed-in-already
 * MFA:        mfa-challenge, mfa-code, mfa-submit, mfa-cancel
 * Forgot/reset: forgot-password-form, forgot-password-email, forgot-password-submit,
 *             forgot-password-sent, password-reset-form, password-reset-password,
 *             password-reset-confirm, password-reset-submit, password-reset-done, password-reset-invalid
 * Handlers:   email-verification-status, magic-link-callback-status, oauth-callback-status,
 *             sign-out-status, error-page (data-state = code), error-page-message, error-page-code, team-invitation-status,
 *             team-invitation-team-name, team-invitation-accept, team-invitation-sign-in
 *             (status elements carry data-state)
 * Account:    account-nav-{section} (accountNav(section)), account-section-{section}
 *             (accountSection(section)); sections: profile, emails, password, passkeys, mfa,
 *             connected-accounts, notifications, permissions, sessions, delete
 *   profile:  profile-form, profile-display-name, profile-save, avatar-image, avatar-input, avatar-remove
 *   e-mails:  contact-channel-add-form, contact-channel-email, contact-channel-used-for-auth,
 *             contact-channel-add, contact-channel-row (data-email), contact-channel-make-primary,
 *             contact-channel-toggle-auth, contact-channel-send-verification, contact-channel-remove
 *   password: password-form, password-old, password-new, password-confirm, password-submit
 *   passkeys: passkey-status, passkey-register, passkey-remove, passkey-unavailable
 *   mfa:      mfa-status, mfa-setup-start, mfa-qr, mfa-secret, mfa-uri, mfa-setup-code,
 *             mfa-setup-enable, mfa-setup-cancel, mfa-disable
 *   linked:   connected-account-row (data-provider), connected-account-link,
 *             connected-account-scope, connected-account-get-token, connected-account-token,
 *             connected-account-relink, connected-account-usable (data-provider, data-account-id)
 *   notifications: notification-preference-row (data-category, data-enabled), notification-preference-toggle
 *   permissions: project-permission-row (data-permission), project-permissions-empty
 *   sessions: session-row (data-current), session-revoke, sessions-revoke-others
 *   delete:   delete-account-confirm, delete-account-submit
 * Teams:      team-create-form, team-create-name, team-create-submit, team-row (data-team-id,
 *             data-team-name), team-name, team-rename-input, team-rename-submit, team-delete,
 *             team-delete-confirm, team-leave, member-row (data-user-id), member-remove, invite-form,
 *             invite-email, invite-submit, invitation-row (data-email), invitation-revoke,
 *             permission-row (data-permission), team-profile-name, team-profile-input, team-profile-save
 * Admin:      admin-sign-in-form, admin-email, admin-password, admin-sign-in-submit, admin-sign-out,
 *             admin-project-select, admin-project-create, admin-project-create-name,
 *             admin-project-create-submit, admin-nav-{section} (adminNav(section)), admin-section-{section}
 *             (adminSection(section)); sections: settings, api-keys, email-templates, permissions,
 *             metrics, emails, webhooks
 *   settings: admin-project-name, admin-project-description, admin-toggle-sign-up,
 *             admin-toggle-magic-link, admin-toggle-passkey, admin-domain-input, admin-domain-add,
 *             admin-domain-row, admin-domain-remove, admin-settings-save, admin-project-delete,
 *             admin-project-delete-confirm
 *   api keys: api-key-create-form, api-key-description, api-key-create, api-key-secrets,
 *             api-key-secrets-dismiss, api-key-row (data-key-id), api-key-revoke, api-key-details,
 *             api-key-detail (data-key-id), api-key-detail-description, api-key-detail-save
 *   e-mails:  email-template-row (data-type), email-template-edit, email-template-subject, email-template-content,
 *             email-template-save, email-template-reset, test-email-form, test-email-recipient,
 *             test-email-submit, test-email-result, sent-email-row
 *   perms:    permission-definition-form, permission-definition-id, permission-definition-description,
 *             permission-definition-create, permission-definition-row (data-permission),
 *             permission-definition-contains (data-permission), permission-definition-edit,
 *             permission-definition-save,
 *             permission-definition-delete
 *   metrics:  metrics-total-users, metrics-chart, metrics-login-methods
 *   webhooks: svix-token-create, svix-token
 */
export const T = {
  nav: 'nav',
  navHome: 'nav-home',
  navTeams: 'nav-teams',
  navAccount: 'nav-account',
  navAdmin: 'nav-admin',
  navSignIn: 'nav-sign-in',
  navSignUp: 'nav-sign-up',
  navSignOut: 'nav-sign-out',
  navGuest: 'nav-guest',
  currentUserEmail: 'current-user-email',
  pageTitle: 'page-title',
  notFound: 'not-found',

  offlineBanner: 'offline-banner',
  offlineDiagnostics: 'offline-diagnostics',
  staleNotice: 'stale-notice',
  sessionEndNotice: 'session-end-notice',
  sessionEndNoticeDismiss: 'session-end-notice-dismiss',

  formError: 'form-error',
  formSuccess: 'form-success',

  signInForm: 'sign-in-form',
  signInEmail: 'sign-in-email',
  signInPassword: 'sign-in-password',
  signInSubmit: 'sign-in-submit',
  signInTabPassword: 'sign-in-tab-password',
  signInTabMagicLink: 'sign-in-tab-magic-link',
  signUpForm: 'sign-up-form',
  signUpEmail: 'sign-up-email',
  signUpPassword: 'sign-up-password',
  signUpPasswordConfirm: 'sign-up-password-confirm',
  signUpSubmit: 'sign-up-submit',
  magicLinkForm: 'magic-link-form',
  magicLinkEmail: 'magic-link-email',
  magicLinkSend: 'magic-link-send',
  magicLinkSent: 'magic-link-sent',
  otpForm: 'otp-form',
  otpInput: 'otp-input',
  otpSubmit: 'otp-submit',
  passkeySignIn: 'passkey-sign-in',
  passkeyUnavailable: 'passkey-unavailable',
  signedInAlready: 'signed-in-already',
  continueAsGuest: 'continue-as-guest',
  guestNotice: 'guest-notice',
  guestUpgrade: 'guest-upgrade',
  signUpUpgradeNotice: 'sign-up-upgrade-notice',

  mfaChallenge: 'mfa-challenge',
  mfaCode: 'mfa-code',
  mfaSubmit: 'mfa-submit',
  mfaCancel: 'mfa-cancel',

  forgotPasswordForm: 'forgot-password-form',
  forgotPasswordEmail: 'forgot-password-email',
  forgotPasswordSubmit: 'forgot-password-submit',
  forgotPasswordSent: 'forgot-password-sent',
  passwordResetForm: 'password-reset-form',
  passwordResetPassword: 'password-reset-password',
  passwordResetConfirm: 'password-reset-confirm',
  passwordResetSubmit: 'password-reset-submit',
  passwordResetDone: 'password-reset-done',
  passwordResetInvalid: 'password-reset-invalid',

  emailVerificationStatus: 'email-verification-status',
  magicLinkCallbackStatus: 'magic-link-callback-status',
  oauthCallbackStatus: 'oauth-callback-status',
  signOutStatus: 'sign-out-status',
  errorPage: 'error-page',
  errorPageMessage: 'error-page-message',
  errorPageCode: 'error-page-code',
  teamInvitationStatus: 'team-invitation-status',
  teamInvitationTeamName: 'team-invitation-team-name',
  teamInvitationAccept: 'team-invitation-accept',
  teamInvitationSignIn: 'team-invitation-sign-in',

  profileForm: 'profile-form',
  profileDisplayName: 'profile-display-name',
  profileSave: 'profile-save',
  avatarImage: 'avatar-image',
  avatarInput: 'avatar-input',
  avatarRemove: 'avatar-remove',
  contactChannelAddForm: 'contact-channel-add-form',
  contactChannelEmail: 'contact-channel-email',
  contactChannelUsedForAuth: 'contact-channel-used-for-auth',
  contactChannelAdd: 'contact-channel-add',
  contactChannelRow: 'contact-channel-row',
  contactChannelMakePrimary: 'contact-channel-make-primary',
  contactChannelToggleAuth: 'contact-channel-toggle-auth',
  contactChannelSendVerification: 'contact-channel-send-verification',
  contactChannelRemove: 'contact-channel-remove',
  passwordForm: 'password-form',
  passwordOld: 'password-old',
  passwordNew: 'password-new',
  passwordConfirm: 'password-confirm',
  passwordSubmit: 'password-submit',
  passkeyStatus: 'passkey-status',
  passkeyRegister: 'passkey-register',
  passkeyRemove: 'passkey-remove',
  mfaStatus: 'mfa-status',
  mfaSetupStart: 'mfa-setup-start',
  mfaQr: 'mfa-qr',
  mfaSecret: 'mfa-secret',
  mfaUri: 'mfa-uri',
  mfaSetupCode: 'mfa-setup-code',
  mfaSetupEnable: 'mfa-setup-enable',
  mfaSetupCancel: 'mfa-setup-cancel',
  mfaDisable: 'mfa-disable',
  connectedAccountRow: 'connected-account-row',
  connectedAccountLink: 'connected-account-link',
  connectedAccountScope: 'connected-account-scope',
  connectedAccountGetToken: 'connected-account-get-token',
  connectedAccountToken: 'connected-account-token',
  connectedAccountRelink: 'connected-account-relink',
  connectedAccountUsable: 'connected-account-usable',
  notificationPreferenceRow: 'notification-preference-row',
  notificationPreferenceToggle: 'notification-preference-toggle',
  projectPermissionRow: 'project-permission-row',
  projectPermissionsEmpty: 'project-permissions-empty',
  sessionRow: 'session-row',
  sessionRevoke: 'session-revoke',
  sessionsRevokeOthers: 'sessions-revoke-others',
  deleteAccountConfirm: 'delete-account-confirm',
  deleteAccountSubmit: 'delete-account-submit',

  teamCreateForm: 'team-create-form',
  teamCreateName: 'team-create-name',
  teamCreateSubmit: 'team-create-submit',
  teamRow: 'team-row',
  teamName: 'team-name',
  teamRenameInput: 'team-rename-input',
  teamRenameSubmit: 'team-rename-submit',
  teamDelete: 'team-delete',
  teamDeleteConfirm: 'team-delete-confirm',
  teamLeave: 'team-leave',
  memberRow: 'member-row',
  memberRemove: 'member-remove',
  inviteForm: 'invite-form',
  inviteEmail: 'invite-email',
  inviteSubmit: 'invite-submit',
  invitationRow: 'invitation-row',
  invitationRevoke: 'invitation-revoke',
  permissionRow: 'permission-row',
  teamProfileName: 'team-profile-name',
  teamProfileInput: 'team-profile-input',
  teamProfileSave: 'team-profile-save',

  adminSignInForm: 'admin-sign-in-form',
  adminEmail: 'admin-email',
  adminPassword: 'admin-password',
  adminSignInSubmit: 'admin-sign-in-submit',
  adminSignOut: 'admin-sign-out',
  adminProjectSelect: 'admin-project-select',
  adminProjectCreate: 'admin-project-create',
  adminProjectCreateName: 'admin-project-create-name',
  adminProjectCreateSubmit: 'admin-project-create-submit',
  adminProjectDelete: 'admin-project-delete',
  adminProjectDeleteConfirm: 'admin-project-delete-confirm',
  adminProjectName: 'admin-project-name',
  adminProjectDescription: 'admin-project-description',
  adminToggleSignUp: 'admin-toggle-sign-up',
  adminToggleMagicLink: 'admin-toggle-magic-link',
  adminTogglePasskey: 'admin-toggle-passkey',
  adminDomainInput: 'admin-domain-input',
  adminDomainAdd: 'admin-domain-add',
  adminDomainRow: 'admin-domain-row',
  adminDomainRemove: 'admin-domain-remove',
  adminSettingsSave: 'admin-settings-save',
  apiKeyCreateForm: 'api-key-create-form',
  apiKeyDescription: 'api-key-description',
  apiKeyCreate: 'api-key-create',
  apiKeySecrets: 'api-key-secrets',
  apiKeySecretsDismiss: 'api-key-secrets-dismiss',
  apiKeyRow: 'api-key-row',
  apiKeyRevoke: 'api-key-revoke',
  apiKeyDetails: 'api-key-details',
  apiKeyDetail: 'api-key-detail',
  apiKeyDetailDescription: 'api-key-detail-description',
  apiKeyDetailSave: 'api-key-detail-save',
  emailTemplateRow: 'email-template-row',
  emailTemplateEdit: 'email-template-edit',
  emailTemplateSubject: 'email-template-subject',
  emailTemplateContent: 'email-template-content',
  emailTemplateSave: 'email-template-save',
  emailTemplateReset: 'email-template-reset',
  testEmailForm: 'test-email-form',
  testEmailRecipient: 'test-email-recipient',
  testEmailSubmit: 'test-email-submit',
  testEmailResult: 'test-email-result',
  sentEmailRow: 'sent-email-row',
  permissionDefinitionForm: 'permission-definition-form',
  permissionDefinitionId: 'permission-definition-id',
  permissionDefinitionDescription: 'permission-definition-description',
  permissionDefinitionCreate: 'permission-definition-create',
  permissionDefinitionRow: 'permission-definition-row',
  permissionDefinitionContains: 'permission-definition-contains',
  permissionDefinitionEdit: 'permission-definition-edit',
  permissionDefinitionSave: 'permission-definition-save',
  permissionDefinitionDelete: 'permission-definition-delete',
  metricsTotalUsers: 'metrics-total-users',
  metricsChart: 'metrics-chart',
  metricsLoginMethods: 'metrics-login-methods',
  svixTokenCreate: 'svix-token-create',
  svixToken: 'svix-token',
} as const;

export const oauthButton = (providerId: string) => `oauth-button-${providerId}`;

export const accountSections = ['profile', 'emails', 'password', 'passkeys', 'mfa', 'connected-accounts', 'notifications', 'permissions', 'sessions', 'delete'] as const;
export type AccountSectionId = (typeof accountSections)[number];
export const accountNav = (section: AccountSectionId) => `account-nav-${section}`;
export const accountSection = (section: AccountSectionId) => `account-section-${section}`;

export const adminSections = ['settings', 'api-keys', 'email-templates', 'permissions', 'metrics', 'emails', 'webhooks'] as const;
export type AdminSectionId = (typeof adminSections)[number];
export const adminNav = (section: AdminSectionId) => `admin-nav-${section}`;
export const adminSection = (section: AdminSectionId) => `admin-section-${section}`;
