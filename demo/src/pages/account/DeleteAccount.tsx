import { useState, type FormEvent } from 'react';
import type { User } from '../../../../client/index.js';
import { useBrokerClient, useProject } from '../../../../client/react/index.js';
import { Alert, ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { navigate } from '../../router.js';
import { T } from '../../testids.js';

export function DeleteAccount({ user }: { user: User }) {
  const client = useBrokerClient();
  const project = useProject();
  const [confirm, setConfirm] = useState('');
  const expected = user.primaryEmail ?? 'delete';
  const remove = useAction(async () => {
    await client.deleteUser();
    navigate(client.paths.home, { replace: true });
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (confirm.trim().toLowerCase() !== expected.toLowerCase()) {
      remove.setError(`Type ${expected} to confirm.`);
      return;
    }
    void remove.run();
  };
  const allowed = project?.config.clientUserDeletionEnabled ?? false;
  return (
    <Card
      tone="danger"
      title="Delete your account"
      description="This removes your account, your e-mail addresses and your team memberships. It cannot be undone."
    >
      {!allowed ? (
        <Alert kind="info">This app does not let people delete their own account. Contact its team instead.</Alert>
      ) : (
        <form className="stack" onSubmit={onSubmit} noValidate>
          <Field label={`Type ${expected} to confirm`}>
            <input
              className="input"
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              data-testid={T.deleteAccountConfirm}
            />
          </Field>
          <ErrorText error={remove.error} />
          <div className="row">
            <Button
              type="submit"
              variant="danger"
              busy={remove.busy}
              disabled={confirm.trim() === ''}
              testid={T.deleteAccountSubmit}
            >
              Delete my account
            </Button>
          </div>
        </form>
      )}
    </Card>
  );
}
