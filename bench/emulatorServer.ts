/**
 * A fresh emulator in its own process, for the Node benchmarks (so that its work and memory are
 * not in the measured process, and it can be pinned to a core). Prints one JSON line with what a
 * client needs; stops when its parent closes stdin or sends SIGTERM.
 */
import { startEmulator } from '../emulator/index.js';
import { seedTeams } from './harness.js';

const teams = Number(process.argv.find((a) => a.startsWith('--teams='))?.split('=')[1] ?? '2');
const em = await startEmulator({ port: 0, host: '127.0.0.1' });
const teamIds = await seedTeams(em, teams);
const { demo } = em.projects;
const response = await fetch(`${em.apiUrl}/auth/password/sign-in`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'x-stack-project-id': demo.id,
    'x-stack-access-type': 'client',
    'x-stack-publishable-client-key': demo.publishableClientKey,
  },
  body: JSON.stringify({ email: em.demoUser!.email, password: em.demoUser!.password }),
});
const tokens = (await response.json()) as { access_token: string; refresh_token: string };
console.log(
  JSON.stringify({
    url: em.url,
    apiUrl: em.apiUrl,
    port: em.port,
    projects: em.projects,
    demoUser: { email: em.demoUser!.email, password: em.demoUser!.password },
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    teamIds,
  }),
);
const stop = () => void em.stop().finally(() => process.exit(0));
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
