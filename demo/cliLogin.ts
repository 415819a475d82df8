/**
 * The demo's command line: signs in with the browser, as a CLI or a desktop app would.
 *
 *   npx tsx demo/cliLogin.ts [app URL]      (default http://localhost:5173, the demo of `npm start`)
 *
 * It reads the demo's project from the running demo, starts a CLI login, prints the link to the
 * demo's confirmation page, waits until it is confirmed in a browser where someone is signed in, and
 * then acts as that user: it reads the user and lists their teams with the session it was given.
 * Run it with `--guest` to start as an anonymous user of its own, which a browser with nobody signed
 * in takes over and keeps by signing up.
 */
import { endpoints } from '../protocol/index.js';
import { createTransport } from '../protocol/transport.js';
import { promptCliLogin } from '../protocol/server.js';
import type { DemoConfig } from './src/client.js';

const args = process.argv.slice(2);
const guest = args.includes('--guest');
const appUrl = args.find((arg) => !arg.startsWith('--')) ?? 'http://localhost:5173';

const config = (await (await fetch(new URL('/demo-config.json', appUrl))).json()) as DemoConfig;
const keys = {
  baseUrl: config.baseUrl,
  projectId: config.projectId,
  publishableClientKey: config.publishableClientKey,
};
const client = createTransport({ ...keys, accessType: 'client' });

let anonRefreshToken: string | undefined;
if (guest) {
  const signedUp = await endpoints.signUpAnonymously(client);
  anonRefreshToken = signedUp.refresh_token;
  console.log(`Started as a guest of our own (user ${signedUp.user_id}).`);
}

const session = await promptCliLogin({
  ...keys,
  appUrl,
  ...(anonRefreshToken === undefined ? {} : { anonRefreshToken }),
  showUrl: (url) => console.log(`\nOpen this link in a browser where you are signed in to the demo:\n\n  ${url}\n`),
});

console.log(`Signed in as ${session.user.primaryEmail ?? session.user.displayName ?? session.user.id}.`);
const asUser = createTransport({ ...keys, accessType: 'client', userTokens: session.tokens });
const me = await endpoints.getCurrentUser(asUser);
if (me === null) throw new Error('The session was given, but the service says nobody is signed in with it.');
const teams = await endpoints.listTeams(asUser, { userId: 'me' });
console.log(`The service agrees: ${me.display_name ?? me.primary_email ?? me.id}, in ${teams.length} team(s).`);
console.log(
  'This CLI holds the browser’s session: signing out there signs it out too. Keep the refresh token where only you can read it.',
);
