import type { SessionModel } from '../../../../client/index.js';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty, Loading } from '../../components/Card.js';
import { formatAgo, formatDateTime } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

function where(session: SessionModel): string {
  const info = session.lastUsedAtEndUserIpInfo;
  if (!info) return 'Unknown location';
  const place = [info.cityName, info.regionCode, info.countryCode].filter(Boolean).join(', ');
  return place ? `${place} · ${info.ip}` : info.ip;
}

function SessionRow({ session }: { session: SessionModel }) {
  const client = useBrokerClient();
  const revoke = useAction(() => client.revokeSession(session.id));
  return (
    <li
      className="list-row"
      data-testid={T.sessionRow}
      data-current={session.isCurrentSession}
      data-session-id={session.id}
    >
      <div className="list-main">
        <div className="row wrap">
          <b>{session.isCurrentSession ? 'This browser' : 'Another session'}</b>
          {session.isCurrentSession && <Badge tone="accent">current</Badge>}
          {session.isImpersonation && <Badge tone="warn">impersonation</Badge>}
        </div>
        <div className="muted small">
          Signed in {formatDateTime(session.createdAt)}
          {session.lastUsedAt !== undefined ? ` · last used ${formatAgo(session.lastUsedAt)}` : ''} · {where(session)}
        </div>
        <ErrorText error={revoke.error} />
      </div>
      {!session.isCurrentSession && (
        <div className="list-actions">
          <Button
            size="small"
            variant="danger"
            busy={revoke.busy}
            onClick={() => void revoke.run()}
            testid={T.sessionRevoke}
          >
            Sign out
          </Button>
        </div>
      )}
    </li>
  );
}

/** Where this account is signed in; others can be signed out from here. */
export function Sessions() {
  const client = useBrokerClient();
  const sessions = useQuery({ kind: 'sessions' });
  const list = [...(sessions.data ?? [])].sort(
    (a, b) => Number(b.isCurrentSession) - Number(a.isCurrentSession) || b.createdAt - a.createdAt,
  );
  const others = list.filter((s) => !s.isCurrentSession);
  const revokeOthers = useAction(async () => {
    for (const session of others) await client.revokeSession(session.id);
  });
  return (
    <Card
      title="Active sessions"
      description="Every browser or device signed in to your account. All tabs of this browser share one session."
      actions={
        others.length > 0 && (
          <Button
            variant="danger"
            size="small"
            busy={revokeOthers.busy}
            onClick={() => void revokeOthers.run()}
            testid={T.sessionsRevokeOthers}
          >
            Sign out all others
          </Button>
        )
      }
    >
      <ErrorText error={revokeOthers.error ?? (sessions.data === undefined ? sessions.error : null)} />
      {sessions.isLoading ? (
        <Loading />
      ) : list.length === 0 ? (
        <Empty>No sessions.</Empty>
      ) : (
        <ul className="list">
          {list.map((session) => (
            <SessionRow key={session.id} session={session} />
          ))}
        </ul>
      )}
    </Card>
  );
}
