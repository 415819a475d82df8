/**
 * What the write queue (queue.ts, a lazy part of the broker) is made from and what it offers: the broker hands it its
 * parts once assembled (offlineWrites.ts), each as narrow as it can be.
 */
import type { AppRequest, AppResponse, PendingChange } from '../../contract/appRequests.js';
import type { QuerySpec } from '../../contract/queries.js';
import type { Clock } from '../../protocol/clock.js';
import type { Transport } from '../../protocol/transport.js';
import type { ApiTransports, ServiceMethods } from '../api/context.js';
import type { AppSession } from '../appRequests/appTokens.js';
import type { ResolvedAppRequests } from '../appRequests/appRequestOptions.js';
import type { QueryFilter } from '../cache/queryClient.js';
import type { LockManagerLike } from '../coordination/locks.js';
import type { WriteKit } from './writeKit.js';

/** The user's session as the queue follows it: whose writes may go, and when they must be dropped. */
export interface WriteSession extends AppSession {
  state(): { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; userId: string | null };
  subscribe(listener: () => void): () => void;
}

/** The broker's cache as the queue shows waiting writes in it (optimistic values) and rolls refused ones back. */
export interface WriteCache {
  ownerOf(scope: 'user'): string;
  readonly cache: {
    get(owner: string, spec: QuerySpec): { snapshot(): { data?: unknown }; setData(data: unknown): void } | undefined;
    readonly updated: { subscribe(listener: () => void): () => void };
  };
  invalidate(filter: QueryFilter): void;
}

export interface WriteQueueParts {
  /** The broker key: the queue's name in storage, its lock's and its channel's. */
  key: string;
  /** The service's base URL (without `/api/v1`), whose API root the queue probes while writes wait for it. */
  baseUrl: string;
  /** Tokens kept in memory: so are the writes. */
  inMemory: boolean;
  appRequests: ResolvedAppRequests;
  marginMillis: number;
  clock: Clock;
  fetch: typeof fetch;
  locks: LockManagerLike | null;
  session: WriteSession;
  connectivity: {
    readonly isOffline: boolean;
    subscribe(listener: (snapshot: { state: string }) => void): () => void;
    /** The service answered (a probe of the queue's, while writes wait for it). */
    recordResponse(status: number): void;
  };
  queries: WriteCache;
  /**
   * The broker's own service methods, their calls made through `transports(own)`: a kept write goes out as the broker's
   * work, in its turns of the scheduler, and once per send (queue.ts).
   */
  services(transports: (own: ApiTransports) => ApiTransports): ServiceMethods;
  /** The broker's own calls, for asking the service whether it holds a write already. */
  client: Transport<'client'>;
  warn(message: string): void;
  /** The broker's modules the queue uses (writeKit.ts). */
  kit: WriteKit;
}

export interface WriteQueue {
  pending(): PendingChange[];
  onChange(listener: (pending: PendingChange[]) => void): () => void;
  /** A tab's call of a broker method: queueable writes wait here while earlier ones wait or the service is away. */
  run(method: string, args: unknown[], now: () => Promise<unknown>): Promise<unknown>;
  sendAppRequest(request: AppRequest): Promise<AppResponse>;
  dismiss(id: string): Promise<void>;
  /** Sends what waits, in order, if the service answers (one broker of the origin at a time). */
  flush(): Promise<void>;
  close(): void;
}

export interface WritesModule {
  createWriteQueue(parts: WriteQueueParts): Promise<WriteQueue>;
}

/** How the write queue loads: a chunk of its own where the host can import(), else given with the host's script. */
export type LoadWrites = () => Promise<WritesModule>;
