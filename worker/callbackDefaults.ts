import type { TabHandlerUrls } from '../contract/api.js';
import type { ServiceMethods } from './tabApi.js';

type WithCallbacks = 'signUpWithPassword' | 'sendMagicLink' | 'sendPasswordResetEmail' | 'sendContactChannelVerification' | 'inviteToTeam';

/**
 * The service methods as one tab calls them: a callback URL the app left out is the tab's own
 * handler page (an e-mail's link opens where the person asked for it), as the official SDK does.
 * An explicit URL always wins.
 */
export function withTabCallbacks(services: ServiceMethods, urls: TabHandlerUrls | undefined): ServiceMethods {
  if (urls === undefined) return services;
  const defaults: Pick<ServiceMethods, WithCallbacks> = {
    signUpWithPassword: (input) => services.signUpWithPassword({ ...input, verificationCallbackUrl: input.verificationCallbackUrl ?? urls.emailVerification }),
    sendMagicLink: (input) => services.sendMagicLink({ ...input, callbackUrl: input.callbackUrl ?? urls.magicLinkCallback }),
    sendPasswordResetEmail: (input) => services.sendPasswordResetEmail({ ...input, callbackUrl: input.callbackUrl ?? urls.passwordReset }),
    sendContactChannelVerification: (channelId, callbackUrl) => services.sendContactChannelVerification(channelId, callbackUrl ?? urls.emailVerification),
    inviteToTeam: (input) => services.inviteToTeam({ ...input, callbackUrl: input.callbackUrl ?? urls.teamInvitation }),
  };
  return { ...services, ...defaults };
}
