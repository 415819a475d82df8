import { useBrokerClient, useProject } from '../../../client/react/index.js';
import { useAuth } from '../lib/auth.js';
import { Link, useLocation } from '../router.js';
import { T } from '../testids.js';
import { Avatar } from './Avatar.js';

function NavLink({ to, label, testid, exact = false }: { to: string; label: string; testid: string; exact?: boolean }) {
  const { pathname } = useLocation();
  const active = exact ? pathname === to : pathname === to || pathname.startsWith(`${to}/`);
  return (
    <Link
      to={to}
      className={active ? 'nav-link is-active' : 'nav-link'}
      aria-current={active ? 'page' : undefined}
      data-testid={testid}
    >
      {label}
    </Link>
  );
}

export function Nav() {
  const client = useBrokerClient();
  const project = useProject();
  const auth = useAuth();
  return (
    <header className="topbar">
      <nav className="nav" aria-label="Main" data-testid={T.nav}>
        <Link to={client.paths.home} className="brand">
          <span className="brand-mark" aria-hidden="true">
            ab
          </span>
          <span className="brand-text">
            <span className="brand-name">authbroker</span>
            <span className="brand-project">{project?.displayName ?? 'demo'}</span>
          </span>
        </Link>
        <div className="nav-links">
          <NavLink to={client.paths.home} label="Home" testid={T.navHome} exact />
          <NavLink to="/teams" label="Teams" testid={T.navTeams} />
          <NavLink to="/shop" label="Shop" testid={T.navShop} />
          <NavLink to="/notes" label="Notes" testid="nav-notes" />
          <NavLink to={client.paths.accountSettings} label="Account" testid={T.navAccount} />
          <NavLink to="/admin" label="Admin" testid={T.navAdmin} />
        </div>
        <div className="nav-user">
          {auth.status === 'signed-in' && (
            <>
              <Link to={client.paths.accountSettings} className="nav-identity" title="Account settings">
                <Avatar
                  src={auth.user.profileImageUrl}
                  name={auth.user.displayName}
                  email={auth.user.primaryEmail}
                  size={32}
                />
                <span className="nav-email" data-testid={T.currentUserEmail}>
                  {auth.user.primaryEmail ?? auth.user.displayName ?? 'Signed in'}
                </span>
              </Link>
              <Link to={client.paths.signOut} className="btn btn-ghost btn-small" data-testid={T.navSignOut}>
                Sign out
              </Link>
            </>
          )}
          {auth.status === 'anonymous' && (
            <span
              className="nav-email muted"
              data-testid={T.navGuest}
              title="Signed in as a guest: create an account to keep what you do here"
            >
              Guest
            </span>
          )}
          {(auth.status === 'signed-out' || auth.status === 'anonymous') && (
            <>
              <Link to={client.paths.signIn} className="btn btn-ghost btn-small" data-testid={T.navSignIn}>
                Sign in
              </Link>
              <Link to={client.paths.signUp} className="btn btn-primary btn-small" data-testid={T.navSignUp}>
                {auth.status === 'anonymous' ? 'Save account' : 'Sign up'}
              </Link>
            </>
          )}
          {auth.status === 'loading' && <span className="nav-placeholder" aria-hidden="true" />}
        </div>
      </nav>
    </header>
  );
}
