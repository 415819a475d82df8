import { useState } from 'react';
import type { User } from '../../../../client/index.js';
import { useBrokerClient, usePasskeysAvailable, useProject } from '../../../../client/react/index.js';
import { Alert, ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card } from '../../components/Card.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

/** Register this device's passkey, or remove the passkey (the service keeps one per account). */
export function Passkeys({ user }: { user: User }) {
  const client = useBrokerClient();
  const project = useProject();
  const [note, setNote] = useState<string | null>(null);
  const register = useAction(async () => {
    await client.registerPasskey();
    setNote('Passkey registered. Next time, sign in with it — no password needed.');
  });
  const remove = useAction(async () => {
    await client.updateUser({ passkeyAuthEnabled: false });
    setNote('Passkey removed.');
  });
  const enabled = project?.config.passkeyEnabled ?? true;
  const supported = usePasskeysAvailable();
  return (
    <Card
      title="Passkeys"
      description="Sign in with your fingerprint, face or device PIN instead of a password. The key never leaves your device."
      actions={
        <span data-testid={T.passkeyStatus} data-state={user.passkeyAuthEnabled ? 'registered' : 'none'}>
          {user.passkeyAuthEnabled ? <Badge tone="good">registered</Badge> : <Badge>none</Badge>}
        </span>
      }
    >
      <div className="stack">
        {!enabled && <Alert kind="info">Passkeys are turned off for this app.</Alert>}
        {enabled && !supported && (
          <Alert kind="info" testid={T.passkeyUnavailable}>
            Passkeys are not available in this browser. Your passkey still works in browsers that have them.
          </Alert>
        )}
        <ErrorText error={register.error ?? remove.error} />
        {note && <Success>{note}</Success>}
        <div className="row">
          {supported && (
            <Button
              variant="primary"
              busy={register.busy}
              disabled={!enabled || remove.busy}
              onClick={() => {
                setNote(null);
                void register.run();
              }}
              testid={T.passkeyRegister}
            >
              {user.passkeyAuthEnabled ? 'Replace with a new passkey' : 'Register a passkey'}
            </Button>
          )}
          {user.passkeyAuthEnabled && (
            <Button
              variant="danger"
              busy={remove.busy}
              disabled={register.busy}
              onClick={() => {
                setNote(null);
                void remove.run();
              }}
              testid={T.passkeyRemove}
            >
              Remove passkey
            </Button>
          )}
        </div>
      </div>
    </Card>
  );
}
