/**
 * The real backend's work folder (several GB: its source, packages, Postgres data): `R` from the
 * environment, or `.artifacts/real-backend` in this repository, as scripts/real/start-backend.sh takes it.
 */
export function realBackendWorkFolder(): string {
  return process.env.R ?? new URL('../../.artifacts/real-backend', import.meta.url).pathname;
}
