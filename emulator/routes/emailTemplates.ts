import type { EmailTemplate, EmailTemplateType } from '../../protocol/resources/admin.js';
import { emailTemplateTypes } from '../../protocol/resources/admin.js';
import { ADMIN, requireAccess } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success, type ApiRequest } from '../http/types.js';
import { anyJson, obj, validate, yup } from '../http/validate.js';
import { defaultEmailSubjects } from '../mailbox.js';
import type { ProjectRecord } from '../state/model.js';
import { defaultTemplateDocuments, isTemplateDocument } from '../templateDocument.js';

/**
 * A default template's content is the emulator's default document, so reading it and writing it back changes nothing.
 */
function templateView(p: ProjectRecord, type: EmailTemplateType): EmailTemplate {
  const custom = p.email_templates[type];
  if (custom) return { type, subject: custom.subject, content: structuredClone(custom.content), is_default: false };
  return {
    type,
    subject: defaultEmailSubjects[type],
    content: structuredClone(defaultTemplateDocuments[type]),
    is_default: true,
  };
}

function templateType(req: ApiRequest): EmailTemplateType {
  const { params } = validate(req, {
    params: obj({
      type: yup
        .string()
        .oneOf([...emailTemplateTypes])
        .defined(),
    }).defined(),
  });
  return params.type;
}

/** E-mail templates of the current project (PROTOCOL.md §4.11, §5.8). */
export function registerEmailTemplateRoutes(router: Router): void {
  router.add('GET', '/email-templates', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    return json({ items: emailTemplateTypes.map((type) => templateView(auth.project, type)), is_paginated: false });
  });

  router.add('GET', '/email-templates/:type', (req) => {
    const auth = requireAccess(req, ADMIN);
    return json(templateView(auth.project, templateType(req)));
  });

  router.add('PATCH', '/email-templates/:type', (req) => {
    const auth = requireAccess(req, ADMIN);
    const type = templateType(req);
    const { body } = validate(req, {
      params: obj({ type: yup.string().defined() }).defined(),
      body: obj({ content: anyJson(), subject: yup.string() }).defined(),
    });
    const p = auth.project;
    if (p.config.email_config.type === 'shared') {
      throw new StatusError(
        400,
        'Cannot update email templates in shared email config. Set up a custom email config to update email templates.',
      );
    }
    // The service checks the document block by block, as its e-mail builder reads it (PROTOCOL.md §5.8).
    if (body.content !== undefined && !isTemplateDocument(body.content))
      throw new StatusError(400, 'Invalid email template content');
    // An upsert: what the body leaves out comes from the current template, custom or default.
    const current = templateView(p, type);
    p.email_templates[type] = { subject: body.subject ?? current.subject, content: body.content ?? current.content };
    return json(templateView(p, type));
  });

  router.add('DELETE', '/email-templates/:type', (req) => {
    const auth = requireAccess(req, ADMIN);
    const type = templateType(req);
    if (!auth.project.email_templates[type]) throw new StatusError(404, 'Email template not found');
    delete auth.project.email_templates[type];
    return success();
  });
}
