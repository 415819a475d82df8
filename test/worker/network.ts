import type { FaultRuleInput } from '../../emulator/index.js';
import type { RunningEmulator } from '../../emulator/index.js';
import { devRequest } from '../support/emulator.js';

/** One attempt the broker made at an API call, as its `fetch` saw it. */
export interface Attempt {
  method: string;
  /**
   * Path after `/api/v1`, with the query. The tests give every logical call its own resource (a
   * team id, a session id…), so this names the call its attempts belong to.
   */
  call: string;
  /** The real status (after `x-stack-actual-status`), or `network` when fetch rejected. */
  outcome: number | 'network';
  knownError: string | null;
  /** The request body when it was text or a form (the token endpoint's grants). */
  requestBody: string | null;
}

export interface RecordingFetch {
  fetch: typeof fetch;
  /** Attempts at API calls (`/api/v1/...`), in the order they were sent; probes are left out. */
  attempts: Attempt[];
  /** Every URL the broker fetched, probes included. */
  urls: string[];
  /** While true, every request fails as fetch does without a network (a TypeError). */
  offline: boolean;
  /** Parsed JSON bodies of API answers (for tests that look for tokens in them). */
  bodies: Promise<unknown>[];
  byCall(filter?: (attempt: Attempt) => boolean): Map<string, Attempt[]>;
}

/** A `fetch` for the broker that records each attempt and can play "no network". */
export function recordingFetch(): RecordingFetch {
  const recorder: RecordingFetch = {
    attempts: [],
    urls: [],
    bodies: [],
    offline: false,
    fetch: async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      recorder.urls.push(url.toString());
      const api = /^\/api\/v1\/./.test(url.pathname);
      const call = `${url.pathname.replace(/^\/api\/v1/, '')}${url.search}`;
      const body = init?.body;
      const requestBody = typeof body === 'string' ? body : body instanceof URLSearchParams ? body.toString() : null;
      if (recorder.offline) {
        if (api) recorder.attempts.push({ method, call, outcome: 'network', knownError: null, requestBody });
        throw new TypeError('fetch failed');
      }
      let response: Response;
      try {
        response = await fetch(input, init);
      } catch (error) {
        if (api) recorder.attempts.push({ method, call, outcome: 'network', knownError: null, requestBody });
        throw error;
      }
      if (api) {
        const actual = response.headers.get('x-stack-actual-status');
        recorder.attempts.push({
          method,
          call,
          outcome: actual === null ? response.status : Number(actual),
          knownError: response.headers.get('x-stack-known-error'),
          requestBody,
        });
        recorder.bodies.push(
          response
            .clone()
            .text()
            .then((text) => {
              try {
                return JSON.parse(text) as unknown;
              } catch {
                return text;
              }
            }),
        );
      }
      return response;
    },
    byCall(filter = () => true) {
      const map = new Map<string, Attempt[]>();
      for (const attempt of recorder.attempts) {
        if (!filter(attempt)) continue;
        const key = `${attempt.method} ${attempt.call}`;
        map.set(key, [...(map.get(key) ?? []), attempt]);
      }
      return map;
    },
  };
  return recorder;
}

export async function addFaults(em: RunningEmulator, rules: FaultRuleInput[], seed?: number): Promise<void> {
  await devRequest(em, 'POST', '/emulator/faults', { rules, ...(seed === undefined ? {} : { seed }) });
}

export async function clearFaults(em: RunningEmulator): Promise<void> {
  await devRequest(em, 'DELETE', '/emulator/faults');
}

/** Lets timers, ports and probes run for a moment of real time (never seconds). */
export function settle(millis = 30): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, millis));
}
