import { useProjectPermissions } from '../../../../client/react/index.js';
import { Card, Empty } from '../../components/Card.js';
import { T } from '../../testids.js';

/** The permissions this user holds in the whole project (granted by the app's server), contained ones included. */
export function ProjectPermissions() {
  const permissions = useProjectPermissions();
  return (
    <Card
      title="Project permissions"
      description="What this app lets you do outside any team. Only the app's server grants them; they include the permissions that others contain."
    >
      {permissions.length === 0 ? (
        <Empty>
          <span data-testid={T.projectPermissionsEmpty}>You hold no project permissions.</span>
        </Empty>
      ) : (
        <ul className="list">
          {permissions.map((permission) => (
            <li
              key={permission.id}
              className="list-row"
              data-testid={T.projectPermissionRow}
              data-permission={permission.id}
            >
              <code>{permission.id}</code>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
