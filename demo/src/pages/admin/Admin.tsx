import { useState } from 'react';
import { useAdminSession, useBrokerClient, useOwnedProjects } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Loading, PageHeader } from '../../components/Card.js';
import { demoConfig } from '../../lib/config.js';
import { useAction } from '../../lib/useAction.js';
import { Link } from '../../router.js';
import { adminNav, adminSection, adminSections, T, type AdminSectionId } from '../../testids.js';
import { AdminSignIn } from './AdminSignIn.js';
import { NewProject } from './NewProject.js';
import { ApiKeys } from './ApiKeys.js';
import { Emails } from './Emails.js';
import { EmailTemplates } from './EmailTemplates.js';
import { Metrics } from './Metrics.js';
import { PermissionDefinitions } from './PermissionDefinitions.js';
import { ProjectSettings } from './ProjectSettings.js';
import { Webhooks } from './Webhooks.js';

const labels: Record<AdminSectionId, string> = {
  settings: 'Settings',
  'api-keys': 'API keys',
  'email-templates': 'E-mail templates',
  permissions: 'Permissions',
  metrics: 'Metrics',
  emails: 'E-mails',
  webhooks: 'Webhooks',
};

function Section({ id, projectId, onDeleted }: { id: AdminSectionId; projectId: string; onDeleted: () => void }) {
  switch (id) {
    case 'settings':
      return <ProjectSettings projectId={projectId} onDeleted={onDeleted} />;
    case 'api-keys':
      return <ApiKeys projectId={projectId} />;
    case 'email-templates':
      return <EmailTemplates projectId={projectId} />;
    case 'permissions':
      return <PermissionDefinitions projectId={projectId} />;
    case 'metrics':
      return <Metrics projectId={projectId} />;
    case 'emails':
      return <Emails projectId={projectId} />;
    case 'webhooks':
      return <Webhooks projectId={projectId} />;
  }
}

function AdminShell({ section }: { section: AdminSectionId }) {
  const client = useBrokerClient();
  const projects = useOwnedProjects();
  const home = demoConfig().projectId;
  const [projectId, setProjectId] = useState(home);
  const signOut = useAction(() => client.adminSignOut());
  const current = projects.find((p) => p.id === projectId);
  return (
    <div className="stack-lg">
      <PageHeader
        title="Project admin"
        lead={current ? `Managing ${current.displayName}.` : 'Managing your project.'}
        actions={
          <div className="row wrap">
            <label className="select-label">
              <span className="muted small">Project</span>
              <select
                className="input select"
                value={projectId}
                onChange={(e) => setProjectId(e.target.value)}
                data-testid={T.adminProjectSelect}
              >
                {projects.length === 0 && <option value={projectId}>{projectId}</option>}
                {projects.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.displayName}
                  </option>
                ))}
              </select>
            </label>
            <NewProject onCreated={setProjectId} />
            <Button variant="ghost" busy={signOut.busy} onClick={() => void signOut.run()} testid={T.adminSignOut}>
              Sign out of admin
            </Button>
          </div>
        }
      />
      <ErrorText error={signOut.error} />
      <div className="settings-layout">
        <nav className="side-nav" aria-label="Admin sections">
          {adminSections.map((id) => (
            <Link
              key={id}
              to={`/admin/${id}`}
              className={id === section ? 'side-link is-active' : 'side-link'}
              aria-current={id === section ? 'page' : undefined}
              data-testid={adminNav(id)}
            >
              {labels[id]}
            </Link>
          ))}
        </nav>
        <div className="settings-content" data-testid={adminSection(section)}>
          <Section key={projectId} id={section} projectId={projectId} onDeleted={() => setProjectId(home)} />
        </div>
      </div>
    </div>
  );
}

/** `/admin/:section`: project administration by a project owner (signed in separately). */
export function Admin({ section }: { section: string | undefined }) {
  const session = useAdminSession();
  const id: AdminSectionId = adminSections.includes(section as AdminSectionId)
    ? (section as AdminSectionId)
    : 'settings';
  if (session.status === 'loading') return <Loading />;
  if (session.status === 'signed-out') return <AdminSignIn />;
  return <AdminShell section={id} />;
}
