import { Card } from '../components/Card.js';
import { Link } from '../router.js';
import { T } from '../testids.js';

export function NotFound() {
  return (
    <Card className="narrow center" title="This page does not exist" testid={T.notFound}>
      <p className="muted">The address may be mistyped, or the page has moved.</p>
      <Link className="btn btn-primary" to="/">
        Go home
      </Link>
    </Card>
  );
}
