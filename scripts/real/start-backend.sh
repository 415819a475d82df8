#!/bin/bash
# Starts the real Stack Auth backend at the pinned upstream commit, with the shared scripts
# (STACK_REAL_SERVICE_DIR; see DEVELOPERS.md). Idempotent: when the API port already answers, the
# running backend is used as it is (it is never stopped here).
#
#   R                 work folder, several GB (default <repository>/.artifacts/real-backend)
#   STACK_REAL_SERVICE_DIR  the shared real-service scripts (start-real-backend.sh, stubs.mjs, offline-fetch.cjs);
#                     default <repository>/../shared/real-service, when that folder exists
#   GIT_DIR_UPSTREAM  git directory of a fetched stack-auth/stack-auth (required unless $R/src-fresh exists)
#   STACK_ACCESS_TOKEN_EXPIRATION_TIME  passed through (only takes effect when this script starts the backend)
set -euo pipefail

PINNED_COMMIT=2f719903b181c20940159e9f3aaaa99bc3ec3b0f   # 2026-04-24, package version 2.8.86
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export R=${R:-$REPO/.artifacts/real-backend}
SHARED=${STACK_REAL_SERVICE_DIR:-$REPO/../shared/real-service}
PORT=${PORT:-8202}
SRC=${SRC:-$R/src-fresh}
log() { echo "[$(date +%T)] $*"; }

if curl -s -m 5 -o /dev/null "http://127.0.0.1:$PORT/api/v1"; then
  log "a backend already answers on $PORT; using it"
  [ -f "$SRC/.authbroker-pinned-commit" ] && log "its source: $(cat "$SRC/.authbroker-pinned-commit")"
  # Its ClickHouse and Svix stand-ins may have stopped without it (they are separate processes): the
  # backend then answers 500 to token renewals' events, metrics and webhook tokens. Start them again.
  if ! curl -sf -m 2 http://127.0.0.1:8136/ping >/dev/null && [ -f "$R/stubs.mjs" ]; then
    log "starting the ClickHouse/Svix stubs again"
    (cd "$R"; setsid nohup node stubs.mjs >> "$R/stubs.log" 2>&1 < /dev/null & echo $! > "$R/stubs.pid")
    for _ in 1 2 3 4 5 6 7 8 9 10; do curl -sf -m 1 http://127.0.0.1:8136/ping >/dev/null && break; sleep 0.5; done
  fi
  exit 0
fi
if [ ! -x "$SHARED/start-real-backend.sh" ]; then
  if [ -z "${STACK_REAL_SERVICE_DIR:-}" ]; then
    echo "STACK_REAL_SERVICE_DIR is not set and the shared real-service scripts are not at $SHARED:" >&2
    echo "set STACK_REAL_SERVICE_DIR to the folder holding start-real-backend.sh (DEVELOPERS.md)" >&2
  else
    echo "STACK_REAL_SERVICE_DIR=$SHARED holds no executable start-real-backend.sh (DEVELOPERS.md)" >&2
  fi
  exit 2
fi
mkdir -p "$R"

# The source at the pinned commit. The shared script exports HEAD when $SRC is missing; exporting the
# pinned commit here first keeps every run on the same backend whatever the mirror's HEAD is.
if [ ! -f "$SRC/package.json" ]; then
  : "${GIT_DIR_UPSTREAM:?set GIT_DIR_UPSTREAM to the git directory of a fetched stack-auth/stack-auth (DEVELOPERS.md)}"
  git --git-dir="$GIT_DIR_UPSTREAM" cat-file -e "$PINNED_COMMIT^{commit}" 2>/dev/null \
    || { echo "commit $PINNED_COMMIT is not in $GIT_DIR_UPSTREAM: fetch stack-auth/stack-auth again" >&2; exit 2; }
  log "exporting stack-auth $PINNED_COMMIT into $SRC"
  mkdir -p "$SRC"; git --git-dir="$GIT_DIR_UPSTREAM" archive "$PINNED_COMMIT" | tar -x -C "$SRC"
  echo "$PINNED_COMMIT" > "$SRC/.authbroker-pinned-commit"
fi
if [ -f "$SRC/.authbroker-pinned-commit" ] && [ "$(cat "$SRC/.authbroker-pinned-commit")" != "$PINNED_COMMIT" ]; then
  echo "$SRC holds $(cat "$SRC/.authbroker-pinned-commit"), not the pinned $PINNED_COMMIT: remove it or set SRC" >&2; exit 2
fi
export GIT_DIR_UPSTREAM=${GIT_DIR_UPSTREAM:-unused-the-source-is-exported}

# What the shared start script expects in $R: the two helpers it runs from there, and a stand-in for
# Prisma's schema-engine binary (`prisma generate` only checks that the file exists; it would be
# downloaded from Prisma's servers otherwise, which are out of reach).
cp -f "$SHARED/offline-fetch.cjs" "$SHARED/stubs.mjs" "$R/"
if [ ! -x "$R/fake-schema-engine" ]; then
  printf '#!/bin/sh\necho "schema-engine stand-in: not available offline" >&2\nexit 1\n' > "$R/fake-schema-engine"
  chmod +x "$R/fake-schema-engine"
fi
"$SHARED/start-real-backend.sh"
