/**
 * CPU time actually spent, as opposed to time a sampling profiler saw a thread busy: on 2 shared
 * cores a thread that waits for a CPU looks busy to a sampler, so sampled totals measure the
 * machine's load (bench 9 once reported 1,642 s of "script time" in a 60 s window).
 *
 * - A tab: its renderer main thread's CPU clock, CDP `Performance.getMetrics` `ThreadTime`.
 * - The broker's SharedWorker (CDP has no Performance domain in workers): its thread in Chromium's
 *   renderer process, `/proc/<pid>/task/<tid>/schedstat` (Linux): nanoseconds on a CPU, and
 *   nanoseconds it was ready to run but waited for one (the contention a sampler counts as work).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { CDPSession } from 'playwright-core';

/** Seconds of the tab's main-thread CPU time, and the wall-clock task and script durations, since the page started. */
export interface TabClock {
  threadSeconds: number;
  taskSeconds: number;
  scriptSeconds: number;
}

export async function tabClock(session: CDPSession): Promise<TabClock> {
  const { metrics } = await session.send('Performance.getMetrics');
  const value = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
  return {
    threadSeconds: value('ThreadTime'),
    taskSeconds: value('TaskDuration'),
    scriptSeconds: value('ScriptDuration'),
  };
}

/** A thread's scheduler accounting since it started. */
export interface ThreadClock {
  runNanos: number;
  waitNanos: number;
}

export interface WorkerThread {
  pid: number;
  tid: number;
}

function readSchedstat(thread: WorkerThread): ThreadClock {
  const [run, wait] = readFileSync(`/proc/${thread.pid}/task/${thread.tid}/schedstat`, 'utf8')
    .trim()
    .split(/\s+/)
    .map(Number);
  return { runNanos: run ?? 0, waitNanos: wait ?? 0 };
}

/**
 * The SharedWorker threads of one browser: threads named `SharedWorker thread` (15 characters kept
 * by Linux) in its renderer processes, found through CDP's process list so that other browsers on
 * the machine (other test runs) are never counted. Empty where /proc is not there.
 */
export async function sharedWorkerThreads(browserSession: CDPSession): Promise<WorkerThread[]> {
  const { processInfo } = (await browserSession.send('SystemInfo.getProcessInfo' as never)) as unknown as {
    processInfo: Array<{ type: string; id: number }>;
  };
  const threads: WorkerThread[] = [];
  for (const { type, id } of processInfo) {
    if (type !== 'renderer') continue;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${id}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        if (readFileSync(`/proc/${id}/task/${tid}/comm`, 'utf8').trim().startsWith('SharedWorker'))
          threads.push({ pid: id, tid: Number(tid) });
      } catch {
        // The thread ended while we looked.
      }
    }
  }
  return threads;
}

/** The summed clocks of `threads` (0 for a thread that has ended). */
export function threadClock(threads: WorkerThread[]): ThreadClock {
  let runNanos = 0;
  let waitNanos = 0;
  for (const thread of threads) {
    try {
      const clock = readSchedstat(thread);
      runNanos += clock.runNanos;
      waitNanos += clock.waitNanos;
    } catch {
      // Ended: it spends nothing more.
    }
  }
  return { runNanos, waitNanos };
}

/**
 * How many renderer processes the browser runs (to tell whether tabs share one, which would merge their main threads).
 */
export async function rendererCount(browserSession: CDPSession): Promise<number> {
  const { processInfo } = (await browserSession.send('SystemInfo.getProcessInfo' as never)) as unknown as {
    processInfo: Array<{ type: string }>;
  };
  return processInfo.filter((p) => p.type === 'renderer').length;
}
