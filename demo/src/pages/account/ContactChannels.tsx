import { useState, type FormEvent } from 'react';
import type { ContactChannelModel } from '../../../../client/index.js';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty, Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { mailboxUrl } from '../../lib/config.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

function ChannelRow({ channel }: { channel: ContactChannelModel }) {
  const client = useBrokerClient();
  const [sent, setSent] = useState(false);
  const primary = useAction(() => client.updateContactChannel(channel.id, { isPrimary: true }));
  const auth = useAction(() => client.updateContactChannel(channel.id, { usedForAuth: !channel.usedForAuth }));
  const verify = useAction(async () => {
    await client.sendContactChannelVerification(channel.id); // the link goes to this tab's e-mail verification page
    setSent(true);
  });
  const remove = useAction(() => client.deleteContactChannel(channel.id));
  const error = primary.error ?? auth.error ?? verify.error ?? remove.error;
  const mailbox = mailboxUrl(channel.value);
  return (
    <li className="list-row list-row-block" data-testid={T.contactChannelRow} data-email={channel.value}>
      <div className="row between wrap">
        <div className="row wrap">
          <b className="wrap-anywhere">{channel.value}</b>
          {channel.isPrimary && <Badge tone="accent">primary</Badge>}
          {channel.isVerified ? <Badge tone="good">verified</Badge> : <Badge tone="warn">not verified</Badge>}
          {channel.usedForAuth && <Badge>used for sign-in</Badge>}
        </div>
        <div className="list-actions">
          {!channel.isVerified && (
            <Button
              size="small"
              busy={verify.busy}
              onClick={() => void verify.run()}
              testid={T.contactChannelSendVerification}
            >
              {sent ? 'Send again' : 'Send verification e-mail'}
            </Button>
          )}
          {!channel.isPrimary && (
            <Button
              size="small"
              busy={primary.busy}
              onClick={() => void primary.run()}
              testid={T.contactChannelMakePrimary}
            >
              Make primary
            </Button>
          )}
          <Button size="small" busy={auth.busy} onClick={() => void auth.run()} testid={T.contactChannelToggleAuth}>
            {channel.usedForAuth ? 'Stop using for sign-in' : 'Use for sign-in'}
          </Button>
          <Button
            size="small"
            variant="danger"
            busy={remove.busy}
            onClick={() => void remove.run()}
            testid={T.contactChannelRemove}
          >
            Remove
          </Button>
        </div>
      </div>
      {sent && (
        <Success>
          Verification e-mail sent to {channel.value}.{' '}
          {mailbox && (
            <a href={mailbox} target="_blank" rel="noreferrer">
              Open the mailbox ↗
            </a>
          )}
        </Success>
      )}
      <ErrorText error={error} />
    </li>
  );
}

export function ContactChannels() {
  const client = useBrokerClient();
  const channels = useQuery({ kind: 'contactChannels' });
  const [email, setEmail] = useState('');
  const [usedForAuth, setUsedForAuth] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const add = useAction(async (value: string) => {
    await client.createContactChannel({ email: value, usedForAuth });
    setAdded(value);
    setEmail('');
    setUsedForAuth(false);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const value = email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(value)) {
      setProblem('Type a valid e-mail address.');
      return;
    }
    setProblem(null);
    setAdded(null);
    void add.run(value);
  };
  const list = channels.data ?? [];
  return (
    <div className="stack">
      <Card
        title="E-mail addresses"
        description="Your primary address receives account e-mails. Addresses used for sign-in accept e-mail codes and password sign-in."
      >
        {channels.isLoading ? (
          <Loading />
        ) : list.length === 0 ? (
          <Empty>No e-mail addresses yet.</Empty>
        ) : (
          <ul className="list">
            {list.map((channel) => (
              <ChannelRow key={channel.id} channel={channel} />
            ))}
          </ul>
        )}
        <ErrorText error={channels.data === undefined ? channels.error : null} />
      </Card>
      <Card title="Add an address">
        <form className="stack" onSubmit={onSubmit} data-testid={T.contactChannelAddForm} noValidate>
          <Field label="E-mail" problem={problem}>
            <input
              className="input"
              type="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              placeholder="you@work.example"
              data-testid={T.contactChannelEmail}
            />
          </Field>
          <label className="check">
            <input
              type="checkbox"
              checked={usedForAuth}
              onChange={(e) => setUsedForAuth(e.target.checked)}
              data-testid={T.contactChannelUsedForAuth}
            />
            Use this address to sign in
          </label>
          <ErrorText error={add.error} />
          {added && <Success>Added {added}. Send it a verification e-mail from the list above.</Success>}
          <div className="row">
            <Button type="submit" variant="primary" busy={add.busy} testid={T.contactChannelAdd}>
              Add address
            </Button>
          </div>
        </form>
      </Card>
    </div>
  );
}
