import { useState, type FormEvent } from 'react';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { Alert, ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty, Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { mailboxUrl } from '../../lib/config.js';
import { formatDateTime } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

interface ServerForm {
  host: string;
  port: string;
  username: string;
  password: string;
  senderName: string;
  senderEmail: string;
}

function TestEmail({ projectId, initial }: { projectId: string; initial: ServerForm }) {
  const client = useBrokerClient();
  const [recipient, setRecipient] = useState('');
  const [server, setServer] = useState(initial);
  const [result, setResult] = useState<{ success: boolean; errorMessage?: string } | null>(null);
  const send = useAction(async () => {
    setResult(null);
    setResult(
      await client.adminSendTestEmail(
        { recipientEmail: recipient.trim(), emailConfig: { ...server, port: Number(server.port) } },
        { projectId },
      ),
    );
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(recipient.trim()))
      return send.setError('Type the address to send the test e-mail to.');
    if (!/^\d+$/.test(server.port)) return send.setError('The port is a number, like 587.');
    void send.run();
  };
  const field = (key: keyof ServerForm, label: string, type = 'text') => (
    <Field label={label}>
      <input
        className="input"
        type={type}
        value={server[key]}
        onChange={(e) => setServer({ ...server, [key]: e.target.value })}
      />
    </Field>
  );
  const mailbox = mailboxUrl(recipient.trim());
  return (
    <Card
      title="Send a test e-mail"
      description="Checks an e-mail server configuration by sending one message through it."
    >
      <form className="stack" onSubmit={onSubmit} data-testid={T.testEmailForm} noValidate>
        <Field label="Send to">
          <input
            className="input"
            type="email"
            value={recipient}
            onChange={(e) => setRecipient(e.target.value)}
            placeholder="you@example.com"
            data-testid={T.testEmailRecipient}
          />
        </Field>
        <div className="form-grid">
          {field('host', 'SMTP host')}
          {field('port', 'Port')}
          {field('username', 'Username')}
          {field('password', 'Password', 'password')}
          {field('senderName', 'Sender name')}
          {field('senderEmail', 'Sender e-mail', 'email')}
        </div>
        <ErrorText error={send.error} />
        {result && (
          <div data-testid={T.testEmailResult} data-state={result.success ? 'sent' : 'failed'}>
            {result.success ? (
              <Alert kind="success">
                The test e-mail was sent.{' '}
                {mailbox && (
                  <a href={mailbox} target="_blank" rel="noreferrer">
                    Open the mailbox ↗
                  </a>
                )}
              </Alert>
            ) : (
              <Alert kind="error">
                {result.errorMessage ?? 'The e-mail could not be sent with this configuration.'}
              </Alert>
            )}
          </div>
        )}
        <div className="row">
          <Button type="submit" variant="primary" busy={send.busy} testid={T.testEmailSubmit}>
            Send test e-mail
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** The project's e-mail log and a test of an SMTP configuration. */
export function Emails({ projectId }: { projectId: string }) {
  const sent = useQuery({ kind: 'admin.sentEmails', projectId });
  const project = useQuery({ kind: 'admin.project', projectId });
  const config = project.data?.config.emailConfig;
  const initial: ServerForm =
    config?.type === 'standard'
      ? {
          host: config.host,
          port: String(config.port),
          username: config.username,
          password: config.password,
          senderName: config.senderName,
          senderEmail: config.senderEmail,
        }
      : {
          host: '',
          port: '587',
          username: '',
          password: '',
          senderName: project.data?.displayName ?? '',
          senderEmail: '',
        };
  const list = [...(sent.data ?? [])].sort((a, b) => b.sentAtMillis - a.sentAtMillis);
  return (
    <div className="stack">
      {project.data === undefined ? <Loading /> : <TestEmail key={projectId} projectId={projectId} initial={initial} />}
      <Card title="Sent e-mails" description="The last 100 e-mails this project sent.">
        {sent.isLoading ? (
          <Loading />
        ) : list.length === 0 ? (
          <Empty>No e-mails sent yet.</Empty>
        ) : (
          <ul className="list compact">
            {list.map((email) => (
              <li key={email.id} className="list-row" data-testid={T.sentEmailRow}>
                <div className="list-main">
                  <div className="row wrap">
                    <b>{email.subject}</b>
                    {email.error !== undefined && email.error !== null && <Badge tone="bad">failed</Badge>}
                  </div>
                  <div className="muted small">
                    to {email.to.join(', ')} · {formatDateTime(email.sentAtMillis)}
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
        <ErrorText error={sent.data === undefined ? sent.error : null} />
      </Card>
    </div>
  );
}
