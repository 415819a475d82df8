import { useCliLoginConfirmation } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Loading } from '../../components/Card.js';
import { useAuth } from '../../lib/auth.js';
import { T } from '../../testids.js';
import { HandlerCard } from './HandlerCard.js';

/**
 * `/handler/cli-auth-confirm?login_code=…`: where a command-line app (`npx tsx demo/cliLogin.ts`)
 * sends the person to sign it in. One click gives it this browser's session; the broker hands it to
 * the service, the page never sees it. Signed out, the click goes to sign in first and finishes on
 * the way back; a link alone never signs a CLI in.
 */
export function CliAuthConfirm() {
  const page = useCliLoginConfirmation();
  const auth = useAuth();

  if (page.loginCode === null) {
    return (
      <HandlerCard title="Sign in a command-line app" testid={T.cliConfirmStatus} state="no-code">
        <ErrorText error="This link has no login code. Start the login again from your command line." />
      </HandlerCard>
    );
  }
  if (page.status === 'confirmed') {
    return (
      <HandlerCard title="The command-line app is signed in" testid={T.cliConfirmStatus} state="confirmed">
        <Success>You can close this window and go back to your command line.</Success>
      </HandlerCard>
    );
  }
  if (page.status === 'confirming' || page.status === 'leaving') return <Loading>Signing the app in…</Loading>;
  return (
    <HandlerCard
      title="Sign in a command-line app"
      subtitle="A command-line or desktop app asks to use your account."
      testid={T.cliConfirmStatus}
      state={page.status}
    >
      <p className="lead-sm">
        {auth.status === 'signed-in' ? (
          <>
            It will be signed in as <b>{auth.user.primaryEmail ?? auth.user.displayName ?? 'you'}</b>, with this
            browser&apos;s session: signing out here signs it out too.
          </>
        ) : (
          <>You will sign in first, then come back here.</>
        )}
      </p>
      <p className="muted small">
        Only go on if you started this from your own command line just now. We never send this link by e-mail: if
        someone sent it to you, close this page.
      </p>
      <ErrorText error={page.error} />
      <div className="row">
        <Button variant="primary" size="large" onClick={page.confirm} testid={T.cliConfirmAuthorize}>
          Authorize
        </Button>
      </div>
    </HandlerCard>
  );
}
