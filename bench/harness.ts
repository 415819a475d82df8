/**
 * What every benchmark shares: flags, statistics, the result shape, child processes, and a
 * request counter for the emulator (every HTTP request, CORS preflights included).
 */
import { spawn } from 'node:child_process';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../emulator/index.js';
import * as endpoints from '../protocol/endpoints/index.js';
import { createTransport } from '../protocol/transport.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH = fileURLToPath(new URL('.', import.meta.url));
export const TMP = fileURLToPath(new URL('./.tmp/', import.meta.url));

export interface Flags {
  quick: boolean;
  /** Benchmark ids to run (all when null). */
  only: Set<string> | null;
  /** Duration of the broker load benchmark (8). */
  loadSeconds: number;
  /** Bench 9's numbers of tabs (`--tabs=1,20`); default by mode. */
  tabs: number[] | null;
}

export function parseFlags(argv: string[]): Flags {
  const quick = argv.includes('--quick');
  const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const only = value('only');
  const load = value('load-seconds');
  const tabs = value('tabs');
  return {
    quick,
    only: only ? new Set(only.split(',')) : null,
    loadSeconds: load ? Number(load) : quick ? 10 : 60,
    tabs: tabs ? tabs.split(',').map(Number) : null,
  };
}

// ── statistics ────────────────────────────────────────────────────────────────────────────────

export interface Summary {
  n: number;
  median: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    median: median(sorted),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
    mean,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A number for a table: `digits` decimals, no trailing noise. */
export function fmt(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || Number.isNaN(value)) return 'n/a';
  return Number.isInteger(value) && digits > 0 && Math.abs(value) >= 1000
    ? value.toLocaleString('en-US')
    : value.toFixed(digits);
}

export const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis));

// ── results ───────────────────────────────────────────────────────────────────────────────────

export interface Goal {
  goal: string;
  measured: string;
  met: boolean | null;
}

export interface Table {
  caption?: string;
  columns: string[];
  rows: Array<Array<string | number>>;
}

export interface BenchResult {
  id: string;
  title: string;
  /** How it was measured (Markdown). */
  method: string;
  tables: Table[];
  goals: Goal[];
  notes: string[];
  /** Raw figures for results.json. */
  data: unknown;
  durationMillis?: number;
  error?: string;
}

// ── child processes ───────────────────────────────────────────────────────────────────────────

export interface ChildOptions {
  /** CPUs to pin the child to (taskset -c). */
  cpus?: string;
  nodeFlags?: string[];
  timeoutMillis?: number;
  env?: Record<string, string>;
}

export function tasksetAvailable(): boolean {
  try {
    readFileSync('/usr/bin/taskset');
    return true;
  } catch {
    return false;
  }
}

/** The command line that runs a TypeScript file of ours under Node (through tsx), optionally pinned. */
export function nodeCommand(file: string, args: string[], options: ChildOptions = {}): [string, string[]] {
  const node = [...(options.nodeFlags ?? []), '--import', 'tsx', file, ...args];
  if (options.cpus !== undefined && tasksetAvailable())
    return ['taskset', ['-c', options.cpus, process.execPath, ...node]];
  return [process.execPath, node];
}

/** Runs a benchmark child (a file of bench/ given `--child`) and returns the JSON it printed last. */
export function runChild<T>(file: string, args: string[], options: ChildOptions = {}): Promise<T> {
  const [command, argv] = nodeCommand(file, ['--child', ...args], options);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...options.env },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMillis ?? 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`${file} exited with ${code}: ${out.slice(-2000)}`));
      try {
        resolve(JSON.parse(line) as T);
      } catch {
        reject(new Error(`${file} printed no JSON result: ${out.slice(-2000)}`));
      }
    });
  });
}

/** True when this module is the process's entry (a benchmark run as a child). */
export function isChild(metaUrl: string): boolean {
  return process.argv.includes('--child') && fileURLToPath(metaUrl) === process.argv[1];
}

// ── the emulator ──────────────────────────────────────────────────────────────────────────────

export interface RequestLog {
  /** Every HTTP request the emulator's server received since the last reset (epoch ms, method, path). */
  entries: Array<{ at: number; method: string; path: string }>;
  reset(): void;
  /** Requests received in [from, to] (epoch ms). */
  between(from: number, to: number): number;
  preflights(): number;
  stop(): void;
}

/**
 * Counts the requests reaching a server on `port` through Node's `http.server.request.start`
 * diagnostics channel: the emulator's own statistics leave out CORS preflights (OPTIONS).
 */
export function logRequests(port: number): RequestLog {
  const entries: RequestLog['entries'] = [];
  const onStart = (message: unknown) => {
    const request = (message as { request: IncomingMessage }).request;
    if (request.socket.localPort !== port) return;
    entries.push({ at: Date.now(), method: request.method ?? 'GET', path: (request.url ?? '').split('?')[0]! });
  };
  diagnosticsChannel.subscribe('http.server.request.start', onStart);
  return {
    entries,
    reset: () => void entries.splice(0),
    between: (from, to) => entries.filter((e) => e.at >= from && e.at <= to).length,
    preflights: () => entries.filter((e) => e.method === 'OPTIONS').length,
    stop: () => diagnosticsChannel.unsubscribe('http.server.request.start', onStart),
  };
}

export interface BenchEmulator {
  em: RunningEmulator;
  log: RequestLog;
  /** Resets the emulator's statistics and the request log: the start of a measurement. */
  reset(): void;
  /** The emulator's counters: all requests (without preflights), token requests, per route. */
  counts(): { requests: number; tokenRequests: number; preflights: number; byRoute: Record<string, number> };
  stop(): Promise<void>;
}

/** A fresh emulator with two teams for the demo user (so the teams hook has something to show). */
export async function startBenchEmulator(options: EmulatorOptions = {}): Promise<BenchEmulator> {
  const em = await startEmulator({ port: 0, host: '127.0.0.1', ...options });
  const log = logRequests(em.port);
  await seedTeams(em, 2);
  return {
    em,
    log,
    reset() {
      em.env.stats.reset();
      log.reset();
    },
    counts() {
      const stats = em.env.stats.snapshot();
      const byRoute: Record<string, number> = {};
      for (const [route, statuses] of Object.entries(stats.requests))
        byRoute[route] = Object.values(statuses).reduce((a, b) => a + b, 0);
      return {
        requests: stats.requests_total,
        tokenRequests: stats.token_refreshes,
        preflights: log.preflights(),
        byRoute,
      };
    },
    async stop() {
      log.stop();
      await em.stop();
    },
  };
}

/** Creates `count` teams with the demo user as creator (server access). Returns their ids. */
export async function seedTeams(em: RunningEmulator, count: number): Promise<string[]> {
  const { demo } = em.projects;
  const t = createTransport({
    baseUrl: em.url,
    projectId: demo.id,
    accessType: 'server',
    secretServerKey: demo.secretServerKey,
    diagnoseFailures: false,
  });
  const users = await endpoints.listUsers(t, { query: em.demoUser?.email });
  const demoUser = users.items.find((u) => u.primary_email === em.demoUser?.email);
  if (!demoUser) throw new Error('The emulator has no demo user.');
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push((await endpoints.createTeam(t, { display_name: `Bench team ${i + 1}`, creator_user_id: demoUser.id })).id);
  return ids;
}

// ── the machine ───────────────────────────────────────────────────────────────────────────────

export function machineInfo() {
  const cpuList = cpus();
  return {
    cpuModel: cpuList[0]?.model ?? 'unknown',
    cores: cpuList.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')) as { version: string })
      .version;
  } catch {
    return 'not installed';
  }
}

export function freshDir(path: string): string {
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  return path;
}

// ── an emulator in its own process ────────────────────────────────────────────────────────────

export interface EmulatorInfo {
  url: string;
  apiUrl: string;
  port: number;
  projects: RunningEmulator['projects'];
  demoUser: { email: string; password: string };
  accessToken: string;
  refreshToken: string;
  teamIds: string[];
}

/** Starts bench/emulatorServer.ts (optionally pinned to `cpus`) and waits for its JSON line. */
export function spawnEmulator(
  options: { teams?: number; cpus?: string } = {},
): Promise<{ info: EmulatorInfo; stop: () => Promise<void> }> {
  const [command, argv] = nodeCommand(
    `${BENCH}emulatorServer.ts`,
    [`--teams=${options.teams ?? 2}`],
    options.cpus === undefined ? {} : { cpus: options.cpus },
  );
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      child.stdout.off('data', onData);
      const info = JSON.parse(out.slice(0, newline)) as EmulatorInfo;
      const stop = () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.stdin.end();
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        });
      resolve({ info, stop });
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`The emulator process exited (${code}) before it was ready: ${out}`)),
    );
  });
}

/** Starts `server` on a free loopback port: its origin, and how to stop it (open keep-alive connections too). */
export async function listenOnLoopback(server: Server): Promise<{ origin: string; stop(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
