import { useQuery } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Avatar } from '../../components/Avatar.js';
import { Card, Empty, Loading } from '../../components/Card.js';
import { DailyChart } from '../../components/DailyChart.js';
import { formatAgo, providerName } from '../../lib/format.js';
import { T } from '../../testids.js';

const methodNames: Record<string, string> = {
  password: 'Password',
  otp: 'E-mail code',
  passkey: 'Passkey',
  other: 'Other',
};

export function Metrics({ projectId }: { projectId: string }) {
  const metrics = useQuery({ kind: 'admin.metrics', projectId });
  const m = metrics.data;
  if (m === undefined) return metrics.error ? <ErrorText error={metrics.error} /> : <Loading />;
  const signUps30 = m.dailyUsers.reduce((sum, d) => sum + d.activity, 0);
  const activeToday = m.dailyActiveUsers.at(-1)?.activity ?? 0;
  const maxMethod = Math.max(1, ...m.loginMethods.map((l) => l.count));
  return (
    <div className="stack">
      <div className="stats">
        <div className="stat">
          <span className="stat-value" data-testid={T.metricsTotalUsers}>
            {m.totalUsers}
          </span>
          <span className="stat-label">users</span>
        </div>
        <div className="stat">
          <span className="stat-value">{signUps30}</span>
          <span className="stat-label">sign-ups in 31 days</span>
        </div>
        <div className="stat">
          <span className="stat-value">{activeToday}</span>
          <span className="stat-label">active today</span>
        </div>
      </div>
      <Card title="Daily activity" description="The last 31 days (UTC).">
        <DailyChart
          bars={m.dailyUsers}
          line={m.dailyActiveUsers}
          barLabel="Sign-ups"
          lineLabel="Active users"
          testid={T.metricsChart}
        />
      </Card>
      <div className="two-columns">
        <Card title="Sign-in methods">
          {m.loginMethods.length === 0 ? (
            <Empty>No sign-ins yet.</Empty>
          ) : (
            <ul className="bars" data-testid={T.metricsLoginMethods}>
              {m.loginMethods.map((l) => (
                <li key={l.method}>
                  <span className="bar-label">{methodNames[l.method] ?? providerName(l.method)}</span>
                  <svg className="bar-meter" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
                    <rect className="bar-track" width={100} height={8} rx={4} />
                    <rect className="bar-fill" width={Math.max(2, (100 * l.count) / maxMethod)} height={8} rx={4} />
                  </svg>
                  <span className="bar-value">{l.count}</span>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card title="Recently signed up">
          {m.recentlyRegistered.length === 0 ? (
            <Empty>Nobody yet.</Empty>
          ) : (
            <ul className="list compact">
              {m.recentlyRegistered.map((u) => (
                <li key={u.id} className="list-row">
                  <Avatar src={u.profileImageUrl} name={u.displayName} email={u.primaryEmail} size={24} />
                  <span className="list-main">
                    <span className="truncate">{u.displayName ?? u.primaryEmail ?? u.id}</span>
                  </span>
                  <span className="muted small">{formatAgo(u.signedUpAtMillis)}</span>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </div>
  );
}
