import { useState } from 'react';
import { useBrokerClient, useProject } from '../../../client/react/index.js';
import { providerName } from '../lib/format.js';
import { useAction } from '../lib/useAction.js';
import { oauthButton } from '../testids.js';
import { ErrorText } from './Alert.js';
import { Button } from './Button.js';
import { ProviderIcon } from './ProviderIcon.js';

/**
 * "Continue with …" for each provider the project enabled. The browser leaves for the provider's
 * consent page (the emulator's, locally) and comes back to the oauth-callback handler page.
 */
export function OAuthButtons({ returnTo, verb = 'Continue' }: { returnTo: string | null; verb?: string }) {
  const client = useBrokerClient();
  const project = useProject();
  const [pending, setPending] = useState<string | null>(null);
  const start = useAction(async (providerId: string) => {
    setPending(providerId);
    try {
      await client.signInWithOAuth(
        providerId,
        returnTo === null ? {} : { afterCallbackRedirectUrl: new URL(returnTo, location.origin).toString() },
      );
    } catch (error) {
      setPending(null);
      throw error;
    }
  });
  const providers = project?.config.enabledOauthProviders ?? [];
  if (providers.length === 0) return null;
  return (
    <div className="oauth-buttons">
      {providers.map(({ id }) => (
        <Button
          key={id}
          className="btn-provider"
          size="large"
          busy={pending === id}
          disabled={pending !== null && pending !== id}
          onClick={() => void start.run(id)}
          testid={oauthButton(id)}
        >
          <ProviderIcon id={id} />
          {verb} with {providerName(id)}
        </Button>
      ))}
      <ErrorText error={start.error} />
    </div>
  );
}
