/**
 * The user hooks' lazy chunk (`user.ts` loads it when first needed): what `or` does beyond reading
 * the user, which most pages never need. One chunk for all of it, loaded once. Like every lazy
 * chunk of the tab, it imports nothing the main chunk imports (docs/decisions/0031-lazy-chunks-share-nothing.md).
 */
export { goToSignIn, linkedAccount, onboardingFirst, signInFirst } from './orRedirect.js';
export { suspendForAnonymousSignUp } from './anonymousSignUp.js';
