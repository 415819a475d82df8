import type { NotificationPreferenceModel } from '../../../../client/index.js';
import { useBrokerClient, useNotificationPreferences } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Loading } from '../../components/Card.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

function PreferenceRow({ preference }: { preference: NotificationPreferenceModel }) {
  const client = useBrokerClient();
  const toggle = useAction(() =>
    client.updateNotificationPreference(preference.notificationCategoryId, { enabled: !preference.enabled }),
  );
  return (
    <li
      className="list-row"
      data-testid={T.notificationPreferenceRow}
      data-category={preference.notificationCategoryName}
      data-enabled={preference.enabled}
    >
      <div className="list-main">
        <div className="row wrap">
          <b>{preference.notificationCategoryName}</b>
          {preference.enabled ? <Badge tone="good">on</Badge> : <Badge tone="warn">off</Badge>}
        </div>
        <div className="muted small">
          {preference.canDisable
            ? 'You choose whether these e-mails are sent.'
            : 'Sent whatever you choose here: they are part of using your account (codes, links, security notices).'}
        </div>
        <ErrorText error={toggle.error} />
      </div>
      <div className="list-actions">
        <Button
          size="small"
          busy={toggle.busy}
          onClick={() => void toggle.run()}
          testid={T.notificationPreferenceToggle}
        >
          {preference.enabled ? 'Turn off' : 'Turn on'}
        </Button>
      </div>
    </li>
  );
}

/** Which categories of e-mail the service sends this user (the same list in every tab). */
export function NotificationPreferences() {
  const preferences = useNotificationPreferences();
  return (
    <Card title="E-mail notifications" description="Choose which e-mails you get. A change shows in every tab at once.">
      {preferences.length === 0 ? (
        <Loading />
      ) : (
        <ul className="list">
          {preferences.map((preference) => (
            <PreferenceRow key={preference.notificationCategoryId} preference={preference} />
          ))}
        </ul>
      )}
    </Card>
  );
}
