import { Suspense, useEffect, type ReactNode } from 'react';
import type { HandlerPaths } from '../../client/index.js';
import { AuthbrokerDevtools } from '../../client/devtools/index.js';
import { useBrokerClient, useProject } from '../../client/react/index.js';
import { ErrorBoundary } from './components/ErrorBoundary.js';
import { Nav } from './components/Nav.js';
import { OfflineBanner } from './components/OfflineBanner.js';
import { SessionEndNotice } from './components/SessionEndNotice.js';
import { AccountSettings } from './pages/account/AccountSettings.js';
import { Admin } from './pages/admin/Admin.js';
import { ForgotPassword } from './pages/auth/ForgotPassword.js';
import { SignIn } from './pages/auth/SignIn.js';
import { SignOut } from './pages/auth/SignOut.js';
import { SignUp } from './pages/auth/SignUp.js';
import { CliAuthConfirm } from './pages/handler/CliAuthConfirm.js';
import { EmailVerification } from './pages/handler/EmailVerification.js';
import { ErrorPage } from './pages/handler/ErrorPage.js';
import { MagicLinkCallback } from './pages/handler/MagicLinkCallback.js';
import { Onboarding } from './pages/handler/Onboarding.js';
import { OAuthCallback } from './pages/handler/OAuthCallback.js';
import { PasswordReset } from './pages/handler/PasswordReset.js';
import { TeamInvitation } from './pages/handler/TeamInvitation.js';
import { Home } from './pages/Home.js';
import { NotFound } from './pages/NotFound.js';
import { Shop } from './pages/shop/Shop.js';
import { Notes } from './pages/notes/Notes.js';
import { TeamPage } from './pages/teams/TeamPage.js';
import { Teams } from './pages/teams/Teams.js';
import { matchPath, useLocation } from './router.js';

interface Route {
  path: string;
  title: string;
  render: (params: Record<string, string>) => ReactNode;
}

/** The app's pages. Handler pages live where the client's configuration says (`client.paths`). */
function routesFor(paths: HandlerPaths): Route[] {
  return [
    { path: paths.home, title: 'Home', render: () => <Home /> },
    { path: paths.signIn, title: 'Sign in', render: () => <SignIn /> },
    { path: paths.signUp, title: 'Create an account', render: () => <SignUp /> },
    { path: paths.signOut, title: 'Sign out', render: () => <SignOut /> },
    { path: paths.forgotPassword, title: 'Reset your password', render: () => <ForgotPassword /> },
    { path: paths.accountSettings, title: 'Account settings', render: () => <AccountSettings /> },
    { path: paths.emailVerification, title: 'E-mail verification', render: () => <EmailVerification /> },
    { path: paths.passwordReset, title: 'Choose a new password', render: () => <PasswordReset /> },
    { path: paths.magicLinkCallback, title: 'Signing in', render: () => <MagicLinkCallback /> },
    { path: paths.oauthCallback, title: 'Signing in', render: () => <OAuthCallback /> },
    { path: paths.teamInvitation, title: 'Team invitation', render: () => <TeamInvitation /> },
    { path: paths.cliAuthConfirm, title: 'Sign in a command-line app', render: () => <CliAuthConfirm /> },
    { path: paths.onboarding, title: 'Finish signing up', render: () => <Onboarding /> },
    { path: paths.error, title: 'Something went wrong', render: () => <ErrorPage /> },
    { path: '/teams', title: 'Teams', render: () => <Teams /> },
    { path: '/teams/:teamId', title: 'Team', render: ({ teamId }) => <TeamPage teamId={teamId!} /> },
    { path: '/shop', title: 'Shop', render: () => <Shop /> },
    { path: '/notes', title: 'Notes', render: () => <Notes /> },
    { path: '/admin', title: 'Project admin', render: () => <Admin section={undefined} /> },
    { path: '/admin/:section', title: 'Project admin', render: ({ section }) => <Admin section={section} /> },
  ];
}

function resolve(routes: Route[], pathname: string): { route: Route | null; params: Record<string, string> } {
  for (const route of routes) {
    const params = matchPath(route.path, pathname);
    if (params !== null) return { route, params };
  }
  return { route: null, params: {} };
}

export function App() {
  const client = useBrokerClient();
  const project = useProject();
  const { pathname } = useLocation();
  const { route, params } = resolve(routesFor(client.paths), pathname);
  const title = route?.title ?? 'Not found';
  useEffect(() => {
    document.title = `${title} · ${project?.displayName ?? 'authbroker demo'}`;
  }, [title, project?.displayName]);
  // The admin pages share one instance (it keeps the chosen project); other pages start fresh.
  const key = route?.path.startsWith('/admin') ? '/admin' : (route?.path ?? 'not-found');
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Nav />
      <OfflineBanner />
      <main id="main" className="main">
        <SessionEndNotice />
        <ErrorBoundary key={key}>
          {route ? <PageFrame key={key}>{route.render(params)}</PageFrame> : <NotFound />}
        </ErrorBoundary>
      </main>
      <AuthbrokerDevtools />
    </div>
  );
}

/** Pages may use suspending hooks (useUser, useSuspense…): the frame shows a quiet placeholder meanwhile. */
function PageFrame({ children }: { children: ReactNode }) {
  return (
    <div className="page">
      <Suspense fallback={<p className="muted">Loading…</p>}>{children}</Suspense>
    </div>
  );
}
