/** Counters the tests and benchmarks read from `GET /emulator/stats`. */
export interface StatsSnapshot {
  started_at_millis: number;
  requests_total: number;
  /** Route pattern (e.g. `GET /users/me`) → actual status → count. */
  requests: Record<string, Record<string, number>>;
  /**
   * Access tokens minted from a refresh token (the token endpoint's refresh grant and the session refresh endpoint).
   */
  token_refreshes: number;
  token_grants: { refresh_token: number; authorization_code: number; session_refresh_endpoint: number };
  /** Successful (status < 400) requests that change state, in all and per route. */
  writes: { total: number; by_route: Record<string, number> };
  faults_injected: { total: number; by_effect: Record<string, number> };
  emails_sent: number;
}

export class Stats {
  private data!: StatsSnapshot;
  constructor(private readonly now: () => number) {
    this.reset();
  }

  reset(): void {
    this.data = {
      started_at_millis: this.now(),
      requests_total: 0,
      requests: {},
      token_refreshes: 0,
      token_grants: { refresh_token: 0, authorization_code: 0, session_refresh_endpoint: 0 },
      writes: { total: 0, by_route: {} },
      faults_injected: { total: 0, by_effect: {} },
      emails_sent: 0,
    };
  }

  request(routeKey: string, status: number, write: boolean): void {
    this.data.requests_total++;
    const byStatus = (this.data.requests[routeKey] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (write && status < 400) {
      this.data.writes.total++;
      this.data.writes.by_route[routeKey] = (this.data.writes.by_route[routeKey] ?? 0) + 1;
    }
  }

  tokenGrant(kind: keyof StatsSnapshot['token_grants']): void {
    this.data.token_grants[kind]++;
    if (kind !== 'authorization_code') this.data.token_refreshes++;
  }

  fault(effect: string): void {
    this.data.faults_injected.total++;
    this.data.faults_injected.by_effect[effect] = (this.data.faults_injected.by_effect[effect] ?? 0) + 1;
  }

  email(): void {
    this.data.emails_sent++;
  }

  snapshot(): StatsSnapshot {
    return structuredClone(this.data);
  }
}
