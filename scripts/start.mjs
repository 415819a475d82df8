#!/usr/bin/env node
// `npm start`: the emulator on 127.0.0.1:8102 (its state kept in .authbroker-emulator/) and the demo on
// http://localhost:5173. Ctrl-C stops both; the emulator stopping alone leaves the demo running (to watch it notice).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const children = [];

function run(
  label,
  command,
  args,
  onLine,
  onExit = (code, signal) => {
    console.error(`\n${label} stopped (${signal ?? `exit code ${code}`}); stopping everything.`);
    stop(1);
  },
) {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, FORCE_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  for (const stream of [child.stdout, child.stderr]) {
    let buffer = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) onExit(code, signal);
  });
  return child;
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 300).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

let demoShown = false;
const emulatorArgs = ['emulator/cli.ts', '--port', '8102', '--host', '127.0.0.1'];
run(
  'The emulator',
  bin('tsx'),
  emulatorArgs,
  (line) => console.log(`[emulator] ${line}`),
  // The demo keeps running: a service that goes away is one of the things it shows (its banner names it).
  (code, signal) =>
    console.error(
      `\n[emulator] stopped (${signal ?? `exit code ${code}`}); the demo keeps running and shows the service as unreachable. Start the emulator again with: npx tsx ${emulatorArgs.join(' ')}\n`,
    ),
);
run('The demo', bin('vite'), ['--config', 'demo/vite.config.ts', '--clearScreen', 'false'], (line) => {
  if (/error/i.test(line)) console.error(`[demo] ${line}`);
  // eslint-disable-next-line no-control-regex
  if (!demoShown && line.replace(/\x1b\[[0-9;]*m/g, '').includes('localhost:5173')) {
    demoShown = true;
    console.log('\n  Demo:     http://localhost:5173   (open it at localhost, not 127.0.0.1: passkeys need it)');
    console.log(
      '  Emulator: base URL http://127.0.0.1:8102 (the API is under /api/v1)   mailbox: http://127.0.0.1:8102/emulator',
    );
    console.log(
      '            state kept across restarts in .authbroker-emulator/state.json (delete it to start afresh)',
    );
    console.log(
      '  Sign in with demo@authbroker.dev / demo-password; admin area: admin@authbroker.dev / admin-password',
    );
    console.log('  Ctrl-C stops both (stopping only the emulator leaves the demo running, to watch it notice).\n');
  }
});
