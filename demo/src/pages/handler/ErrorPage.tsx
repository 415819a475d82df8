import { describeError } from '../../../../client/messages.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { Alert } from '../../components/Alert.js';
import { Link, useLocation } from '../../router.js';
import { T } from '../../testids.js';
import { HandlerCard } from './HandlerCard.js';

/**
 * `/handler/error?errorCode=…&message=…`: where the service sends the browser when a redirect flow
 * fails. Anyone can craft such a link, so the page says only what we wrote: our sentence for a code
 * we know, a generic one otherwise. The address's own `message` is never shown as if it were ours.
 */
export function ErrorPage() {
  const client = useBrokerClient();
  const { search } = useLocation();
  const given = search.get('errorCode') ?? search.get('error_code') ?? search.get('error');
  const code = given !== null && /^[A-Z][A-Z0-9_]{0,79}$/.test(given) ? given : null;
  const sentence =
    given === null
      ? 'Something went wrong, but the page that sent you here did not say what.'
      : describeError({ code: code ?? 'UNKNOWN', message: '' });
  return (
    <HandlerCard title="Something went wrong" testid={T.errorPage} state={code ?? 'unknown'}>
      <Alert kind="error" testid={T.errorPageMessage}>
        {sentence}
      </Alert>
      {code && (
        <p className="muted small">
          Error code: <code data-testid={T.errorPageCode}>{code}</code>
        </p>
      )}
      <div className="row">
        <Link className="btn btn-primary" to={client.paths.signIn}>
          Back to sign-in
        </Link>
        <Link className="btn btn-secondary" to={client.paths.home}>
          Home
        </Link>
      </div>
    </HandlerCard>
  );
}
