import { useState, type FormEvent } from 'react';
import type { EmailTemplateModel } from '../../../../client/index.js';
import type { Json } from '../../../../protocol/resources/common.js';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

const names: Record<EmailTemplateModel['type'], { title: string; variables: string[] }> = {
  email_verification: { title: 'E-mail verification', variables: ['emailVerificationLink'] },
  password_reset: { title: 'Password reset', variables: ['passwordResetLink'] },
  magic_link: { title: 'Magic link', variables: ['magicLink', 'otp'] },
  team_invitation: { title: 'Team invitation', variables: ['teamDisplayName', 'teamInvitationLink'] },
};

/** Plain text is edited as text; anything else (e.g. a rich-text document) as JSON. */
const contentText = (content: Json) => (typeof content === 'string' ? content : JSON.stringify(content, null, 2));

function TemplateEditor({
  template,
  projectId,
  onClose,
}: {
  template: EmailTemplateModel;
  projectId: string;
  onClose: () => void;
}) {
  const client = useBrokerClient();
  const isText = typeof template.content === 'string';
  const [subject, setSubject] = useState(template.subject);
  const [content, setContent] = useState(contentText(template.content));
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction(async () => {
    let parsed: Json = content;
    if (!isText) {
      try {
        parsed = JSON.parse(content) as Json;
      } catch {
        throw new Error('The content is not valid JSON.');
      }
    }
    await client.adminUpdateEmailTemplate(template.type, { subject, content: parsed }, { projectId });
    setSaved('Saved. New e-mails use this template.');
  });
  const reset = useAction(async () => {
    await client.adminResetEmailTemplate(template.type, { projectId });
    onClose();
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    if (subject.trim() === '') return save.setError('The subject cannot be empty.');
    void save.run();
  };
  const vars = ['projectDisplayName', 'userDisplayName', ...names[template.type].variables];
  return (
    <form className="stack template-editor" onSubmit={onSubmit} noValidate>
      <Field label="Subject">
        <input
          className="input"
          value={subject}
          onChange={(e) => setSubject(e.target.value)}
          data-testid={T.emailTemplateSubject}
        />
      </Field>
      <Field
        label={isText ? 'Body' : 'Content (JSON)'}
        hint={
          <>
            Variables:{' '}
            {vars.map((v) => (
              <code key={v} className="var">{`{{ ${v} }}`}</code>
            ))}
          </>
        }
      >
        <textarea
          className="input mono"
          rows={8}
          value={content}
          onChange={(e) => setContent(e.target.value)}
          spellCheck={false}
          data-testid={T.emailTemplateContent}
        />
      </Field>
      <ErrorText error={save.error ?? reset.error} />
      {saved && <Success>{saved}</Success>}
      <div className="row">
        <Button type="submit" variant="primary" busy={save.busy} testid={T.emailTemplateSave}>
          Save template
        </Button>
        {!template.isDefault && (
          <Button variant="danger" busy={reset.busy} onClick={() => void reset.run()} testid={T.emailTemplateReset}>
            Reset to default
          </Button>
        )}
        <Button variant="ghost" onClick={onClose}>
          Close
        </Button>
      </div>
    </form>
  );
}

export function EmailTemplates({ projectId }: { projectId: string }) {
  const templates = useQuery({ kind: 'admin.emailTemplates', projectId });
  const project = useQuery({ kind: 'admin.project', projectId });
  const [editing, setEditing] = useState<EmailTemplateModel['type'] | null>(null);
  const shared = project.data?.config.emailConfig.type === 'shared';
  return (
    <Card
      title="E-mail templates"
      description="What the service sends for each flow. Use {{ variables }} for the parts that change."
    >
      {shared && (
        <p className="muted small">
          This project uses the shared e-mail server, which only sends the default templates. Set up your own server to
          customise them.
        </p>
      )}
      {templates.isLoading ? (
        <Loading />
      ) : (
        <ul className="list">
          {(templates.data ?? []).map((t) => (
            <li key={t.type} className="list-row list-row-block" data-testid={T.emailTemplateRow} data-type={t.type}>
              <div className="row between">
                <div className="list-main">
                  <div className="row wrap">
                    <b>{names[t.type].title}</b>
                    {t.isDefault ? <Badge>default</Badge> : <Badge tone="accent">customised</Badge>}
                  </div>
                  <div className="muted small">{t.subject}</div>
                </div>
                {editing !== t.type && (
                  <Button size="small" onClick={() => setEditing(t.type)} testid={T.emailTemplateEdit}>
                    Edit
                  </Button>
                )}
              </div>
              {editing === t.type && (
                <TemplateEditor template={t} projectId={projectId} onClose={() => setEditing(null)} />
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorText error={templates.data === undefined ? templates.error : null} />
    </Card>
  );
}
