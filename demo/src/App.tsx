import { useUser } from '../../client/react/index.js';

export function App() {
  const user = useUser();
  return <main>{user === null ? 'Signed out' : `Signed in as ${user.primaryEmail}`}</main>;
}
