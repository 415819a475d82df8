import { requireNonEmptyString, requireObject, requireUuid } from '../args.js';
import { InvalidArgumentError } from '../errors/errors.js';
import type {
  ApiKeySet,
  ApiKeySetCreate,
  ApiKeySetUpdate,
  ApiKeySetWithSecrets,
  EmailTemplate,
  EmailTemplateType,
  EmailTemplateUpdate,
  ProjectMetrics,
  SendTestEmailRequest,
  SendTestEmailResult,
  SentEmail,
  SvixToken,
} from '../resources/admin.js';
import { emailTemplateTypes } from '../resources/admin.js';
import type { ListResponse, SuccessResponse } from '../resources/common.js';
import type { Transport } from '../transport.js';

type Admin = Transport<'admin'>;

/** Newest first; secrets reduced to their last four characters. */
export async function listApiKeys(t: Admin): Promise<ApiKeySet[]> {
  return (await t.request<ListResponse<ApiKeySet>>({ method: 'GET', path: '/internal/api-keys' })).items;
}

/** The only time the secrets are shown. */
export function createApiKey(t: Admin, input: ApiKeySetCreate): Promise<ApiKeySetWithSecrets> {
  const body = requireObject(input, 'input');
  if (typeof body.expires_at_millis !== 'number')
    throw new InvalidArgumentError('expires_at_millis', 'expires_at_millis must be a number of milliseconds.');
  return t.request({ method: 'POST', path: '/internal/api-keys', body });
}

/** One API key set, without its secrets. */
export function getApiKey(t: Admin, apiKeyId: string): Promise<ApiKeySet> {
  return t.request({ method: 'GET', path: `/internal/api-keys/${requireUuid(apiKeyId, 'apiKeyId')}` });
}

/** Changes an API key set's description. */
export function updateApiKey(t: Admin, apiKeyId: string, update: ApiKeySetUpdate): Promise<ApiKeySet> {
  return t.request({
    method: 'PATCH',
    path: `/internal/api-keys/${requireUuid(apiKeyId, 'apiKeyId')}`,
    body: requireObject(update, 'update'),
  });
}

/** Revoked keys stop authenticating at once. There is no way to undo it. */
export function revokeApiKey(t: Admin, apiKeyId: string): Promise<ApiKeySet> {
  return updateApiKey(t, apiKeyId, { revoked: true });
}

function requireTemplateType(type: unknown): EmailTemplateType {
  if (!emailTemplateTypes.includes(type as EmailTemplateType)) {
    throw new InvalidArgumentError('type', `type must be one of ${emailTemplateTypes.join(', ')}.`);
  }
  return type as EmailTemplateType;
}

/** Always the four types, custom or default. */
export async function listEmailTemplates(t: Admin): Promise<EmailTemplate[]> {
  return (await t.request<ListResponse<EmailTemplate>>({ method: 'GET', path: '/email-templates' })).items;
}

/** One e-mail template by type. */
export function getEmailTemplate(t: Admin, type: EmailTemplateType): Promise<EmailTemplate> {
  return t.request({ method: 'GET', path: `/email-templates/${requireTemplateType(type)}` });
}

/** Needs a non-shared e-mail configuration. */
export function updateEmailTemplate(
  t: Admin,
  type: EmailTemplateType,
  update: EmailTemplateUpdate,
): Promise<EmailTemplate> {
  return t.request({
    method: 'PATCH',
    path: `/email-templates/${requireTemplateType(type)}`,
    body: requireObject(update, 'update'),
  });
}

/** Back to the default template. */
export function resetEmailTemplate(t: Admin, type: EmailTemplateType): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: `/email-templates/${requireTemplateType(type)}` });
}

/** A token for the webhook app portal. */
export function createSvixToken(t: Admin): Promise<SvixToken> {
  return t.request({ method: 'POST', path: '/webhooks/svix-token', body: {} });
}

/** The project's sign-up and activity figures. */
export function getProjectMetrics(t: Admin): Promise<ProjectMetrics> {
  return t.request({ method: 'GET', path: '/internal/metrics' });
}

/** SMTP failures come back as `{ success: false, error_message }`, never as an HTTP error. */
export function sendTestEmail(t: Admin, input: SendTestEmailRequest): Promise<SendTestEmailResult> {
  const body = requireObject(input, 'input');
  requireNonEmptyString(body.recipient_email, 'recipient_email');
  requireObject(body.email_config, 'email_config');
  return t.request({ method: 'POST', path: '/internal/send-test-email', body });
}

/** Newest first, at most 100. */
export async function listSentEmails(t: Admin): Promise<SentEmail[]> {
  return (await t.request<ListResponse<SentEmail>>({ method: 'GET', path: '/internal/emails' })).items;
}
