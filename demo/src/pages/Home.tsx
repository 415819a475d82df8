import { useBrokerClient, useBrokerStatus, useProject } from '../../../client/react/index.js';
import { Avatar } from '../components/Avatar.js';
import { Badge, Card, Loading } from '../components/Card.js';
import { useAuth } from '../lib/auth.js';
import { mailboxUrl } from '../lib/config.js';
import { formatDate, providerName } from '../lib/format.js';
import { Link } from '../router.js';
import { T } from '../testids.js';

function Tile({ to, title, text, external = false }: { to: string; title: string; text: string; external?: boolean }) {
  const body = (
    <>
      <span className="tile-title">
        {title} <span aria-hidden="true">{external ? '↗' : '→'}</span>
      </span>
      <span className="tile-text">{text}</span>
    </>
  );
  return external ? (
    <a className="tile" href={to} target="_blank" rel="noreferrer">
      {body}
    </a>
  ) : (
    <Link className="tile" to={to}>
      {body}
    </Link>
  );
}

export function Home() {
  const client = useBrokerClient();
  const auth = useAuth();
  const project = useProject();
  const status = useBrokerStatus();
  const mailbox = mailboxUrl();
  return (
    <div className="stack-lg">
      <section className="hero">
        <p className="eyebrow">Live demo{project ? ` · project “${project.displayName}”` : ''}</p>
        <h1>One sign-in, shared by every tab.</h1>
        <p className="lead">
          A single broker per site — running in a SharedWorker
          {status ? (
            <>
              {' '}
              (here: <b>{status.mode}</b>)
            </>
          ) : null}{' '}
          — owns the session, renews the token once for all tabs and keeps one cache. Tabs talk to it through Comlink;
          the React hooks on this page read that cache, so every tab shows the same thing at the same time.
        </p>
      </section>

      {auth.status === 'loading' && <Loading />}
      {auth.status === 'signed-out' && (
        <Card title="You are not signed in" description="Sign in to try the account, team and security features.">
          <div className="row">
            <Link className="btn btn-primary" to={client.paths.signIn}>
              Sign in
            </Link>
            <Link className="btn btn-secondary" to={client.paths.signUp}>
              Create an account
            </Link>
          </div>
          <p className="muted small">
            A demo account is ready: <code>demo@authbroker.dev</code> with the password <code>demo-password</code>.
          </p>
        </Card>
      )}
      {auth.status === 'anonymous' && (
        <Card
          title="You are browsing as a guest"
          description="A guest is a real user of this app, made without an e-mail: what you do is kept, in every tab. It lasts as long as this browser keeps its session."
        >
          <div className="stack-sm" data-testid={T.guestNotice}>
            <p className="muted small">
              Create an account (password, e-mail code or a provider) to keep it for good: it becomes this same user, id{' '}
              <code>{auth.user.id.slice(0, 8)}…</code>, with everything you did as a guest.
            </p>
            <div className="row">
              <Link className="btn btn-primary" to={client.paths.signUp} data-testid={T.guestUpgrade}>
                Create an account
              </Link>
              <Link className="btn btn-secondary" to={client.paths.signIn}>
                Sign in to another account
              </Link>
            </div>
          </div>
        </Card>
      )}
      {auth.status === 'signed-in' && (
        <Card>
          <div className="profile-summary">
            <Avatar
              src={auth.user.profileImageUrl}
              name={auth.user.displayName}
              email={auth.user.primaryEmail}
              size={64}
            />
            <div className="stack-sm">
              <h2 className="card-title">Welcome{auth.user.displayName ? `, ${auth.user.displayName}` : ''}</h2>
              <div className="row wrap">
                <span>{auth.user.primaryEmail ?? 'No e-mail'}</span>
                {auth.user.primaryEmail &&
                  (auth.user.primaryEmailVerified ? (
                    <Badge tone="good">verified</Badge>
                  ) : (
                    <Badge tone="warn">not verified</Badge>
                  ))}
              </div>
              <div className="row wrap small muted">
                <span>Member since {formatDate(auth.user.signedUpAtMillis)}</span>
                <span>·</span>
                <span>Two-factor {auth.user.requiresTotpMfa ? 'on' : 'off'}</span>
                <span>·</span>
                <span>Passkey {auth.user.passkeyAuthEnabled ? 'registered' : 'none'}</span>
                {auth.user.oauthProviders.length > 0 && (
                  <>
                    <span>·</span>
                    <span>Linked: {auth.user.oauthProviders.map((p) => providerName(p.id)).join(', ')}</span>
                  </>
                )}
              </div>
            </div>
          </div>
        </Card>
      )}

      <div className="tiles">
        <Tile
          to={client.paths.accountSettings}
          title="Account settings"
          text="Profile, e-mails, password, passkeys, two-factor, linked accounts and sessions."
        />
        <Tile
          to="/teams"
          title="Teams"
          text="Create teams, invite people by e-mail, manage members and see your permissions."
        />
        <Tile
          to="/admin"
          title="Project admin"
          text="Sign in as the project owner: settings, API keys, e-mail templates, permissions and metrics."
        />
        {mailbox && (
          <Tile
            to={mailbox}
            external
            title="Mailbox"
            text="Every e-mail the local service sends lands here: codes, links and invitations."
          />
        )}
      </div>

      <Card title="Things to try" description="The broker is easiest to understand by watching it.">
        <ol className="steps">
          <li>Open this page in a second tab. Sign in or out in one: the other follows at once, without reloading.</li>
          <li>
            Open the devtools at the bottom right (authbroker/devtools): the host, the tabs connected, every request the
            broker sent and which tab caused it, and how often the token was renewed — once for all tabs.
          </li>
          <li>
            Stop the local service: an offline banner explains what was checked, and everything comes back by itself
            when it returns.
          </li>
          <li>
            Sign in with a code sent by e-mail: type the 6 characters, or open the link from the{' '}
            {mailbox ? (
              <a href={mailbox} target="_blank" rel="noreferrer">
                mailbox
              </a>
            ) : (
              'mailbox'
            )}
            .
          </li>
        </ol>
      </Card>
    </div>
  );
}
