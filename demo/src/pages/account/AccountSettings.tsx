import type { User } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { PageHeader } from '../../components/Card.js';
import { RequireUser } from '../../components/RequireUser.js';
import { Link, useLocation } from '../../router.js';
import { accountNav, accountSection, accountSections, type AccountSectionId } from '../../testids.js';
import { ConnectedAccounts } from './ConnectedAccounts.js';
import { ContactChannels } from './ContactChannels.js';
import { DeleteAccount } from './DeleteAccount.js';
import { Mfa } from './Mfa.js';
import { NotificationPreferences } from './NotificationPreferences.js';
import { OAuthProviders } from './OAuthProviders.js';
import { Passkeys } from './Passkeys.js';
import { PasswordSection } from './PasswordSection.js';
import { Profile } from './Profile.js';
import { ProjectPermissions } from './ProjectPermissions.js';
import { Sessions } from './Sessions.js';
import { UserApiKeys } from './UserApiKeys.js';

const labels: Record<AccountSectionId, string> = {
  profile: 'Profile',
  emails: 'E-mail addresses',
  password: 'Password',
  passkeys: 'Passkeys',
  mfa: 'Two-factor',
  'connected-accounts': 'Connected accounts',
  'api-keys': 'API keys',
  notifications: 'Notifications',
  permissions: 'Permissions',
  sessions: 'Active sessions',
  delete: 'Delete account',
};

function Section({ id, user }: { id: AccountSectionId; user: User }) {
  switch (id) {
    case 'profile':
      return <Profile user={user} />;
    case 'emails':
      return <ContactChannels />;
    case 'password':
      return <PasswordSection user={user} />;
    case 'passkeys':
      return <Passkeys user={user} />;
    case 'mfa':
      return <Mfa user={user} />;
    case 'connected-accounts':
      return (
        <div className="stack">
          <ConnectedAccounts user={user} />
          <OAuthProviders />
        </div>
      );
    case 'api-keys':
      return <UserApiKeys />;
    case 'notifications':
      return <NotificationPreferences />;
    case 'permissions':
      return <ProjectPermissions />;
    case 'sessions':
      return <Sessions />;
    case 'delete':
      return <DeleteAccount user={user} />;
  }
}

/** `/handler/account-settings?section=…`: everything a person manages about their account. */
export function AccountSettings() {
  const client = useBrokerClient();
  const { pathname, search } = useLocation();
  const requested = search.get('section') as AccountSectionId | null;
  const current: AccountSectionId = requested !== null && accountSections.includes(requested) ? requested : 'profile';
  return (
    <RequireUser what="your account settings">
      {(user) => (
        <div className="stack-lg">
          <PageHeader title="Account settings" lead="Changes apply at once in every tab you have open." />
          <div className="settings-layout">
            <nav className="side-nav" aria-label="Account settings">
              {accountSections.map((id) => (
                <Link
                  key={id}
                  to={`${client.paths.accountSettings}?section=${id}`}
                  replace
                  className={
                    id === current
                      ? 'side-link is-active'
                      : id === 'delete'
                        ? 'side-link side-link-danger'
                        : 'side-link'
                  }
                  aria-current={id === current ? 'page' : undefined}
                  data-testid={accountNav(id)}
                >
                  {labels[id]}
                </Link>
              ))}
            </nav>
            <div className="settings-content" data-testid={accountSection(current)} data-path={pathname}>
              <Section id={current} user={user} />
            </div>
          </div>
        </div>
      )}
    </RequireUser>
  );
}
