import { useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import type { User } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Avatar } from '../../components/Avatar.js';
import { Button } from '../../components/Button.js';
import { Card } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { imageFileToDataUrl } from '../../lib/image.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

export function Profile({ user }: { user: User }) {
  const client = useBrokerClient();
  const [name, setName] = useState(user.displayName ?? '');
  const [saved, setSaved] = useState(false);
  // Another tab may rename the user: follow it unless this form has unsaved typing.
  const [edited, setEdited] = useState(false);
  useEffect(() => {
    if (!edited) setName(user.displayName ?? '');
  }, [user.displayName, edited]);

  const save = useAction(async () => {
    const trimmed = name.trim();
    await client.updateUser({ displayName: trimmed === '' ? null : trimmed });
    setEdited(false);
    setSaved(true);
  });
  const picture = useAction(async (file: File | null) => {
    await client.updateUser({ profileImageUrl: file === null ? null : await imageFileToDataUrl(file) });
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim().length > 100) {
      save.setError('Use at most 100 characters for your name.');
      return;
    }
    void save.run();
  };
  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0] ?? null;
    event.target.value = '';
    if (file) void picture.run(file);
  };

  return (
    <div className="stack">
      <Card
        title="Profile picture"
        description="Shown to your teammates. It is resized to a small square in your browser before it is saved."
      >
        <div className="row">
          <Avatar
            src={user.profileImageUrl}
            name={user.displayName}
            email={user.primaryEmail}
            size={96}
            testid={T.avatarImage}
          />
          <div className="stack-sm">
            <div className="row wrap">
              <label className={picture.busy ? 'btn btn-secondary is-busy' : 'btn btn-secondary'}>
                {picture.busy && <span className="spinner" aria-hidden="true" />}
                <span className="btn-label">{user.profileImageUrl ? 'Change picture' : 'Upload picture'}</span>
                <input
                  className="visually-hidden"
                  type="file"
                  accept="image/*"
                  onChange={onFile}
                  disabled={picture.busy}
                  data-testid={T.avatarInput}
                />
              </label>
              {user.profileImageUrl && (
                <Button
                  variant="ghost"
                  onClick={() => void picture.run(null)}
                  disabled={picture.busy}
                  testid={T.avatarRemove}
                >
                  Remove
                </Button>
              )}
            </div>
            <span className="muted small">PNG, JPEG, GIF or WebP.</span>
          </div>
        </div>
        <ErrorText error={picture.error} />
      </Card>

      <Card title="Your name" description="How you appear in the app and to your teams.">
        <form className="stack" onSubmit={onSubmit} data-testid={T.profileForm} noValidate>
          <Field label="Display name">
            <input
              className="input"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                setEdited(true);
                setSaved(false);
              }}
              placeholder="Ada Lovelace"
              autoComplete="name"
              data-testid={T.profileDisplayName}
            />
          </Field>
          <ErrorText error={save.error} />
          {saved && !edited && <Success>Saved.</Success>}
          <div className="row">
            <Button type="submit" variant="primary" busy={save.busy} disabled={!edited} testid={T.profileSave}>
              Save
            </Button>
          </div>
        </form>
      </Card>
    </div>
  );
}
