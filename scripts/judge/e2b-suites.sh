#!/usr/bin/env bash
# E2B's own JS SDK tests against Box (issue 33's judge; not run by CI). Extracts
# packages/js-sdk/tests of e2b-dev/E2B at the pinned commit outside the project
# (E2B_SUITES_DIR, default ~/.cache/box-judge/e2b-suites; E2B's files are never committed here),
# then scripts/judge/e2b-suites-run.ts starts a service from this checkout (real boxes) and runs
# the files one at a time with the published `e2b` package of node_modules in place of the
# SDK's sources: only configuration differs (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY and
# longer timeouts for TCG). Per-file results: BENCHMARKS.md, "E2B's own test suites".
#
#   scripts/judge/e2b-suites.sh                      # the default set of files (see the runner)
#   scripts/judge/e2b-suites.sh sandbox/files/read.test.ts sandbox/pty   # some files or folders
#
# E2B_GIT: a clone (or bare mirror) of github.com/e2b-dev/E2B to take the commit from; without
# it the commit is fetched from GitHub into the judge folder.
set -euo pipefail
COMMIT=b8029973aa7da5f741f7bb1a9f833b38a0885438
DIR="${E2B_SUITES_DIR:-$HOME/.cache/box-judge/e2b-suites}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
if [ ! -f "$DIR/$COMMIT/tests/setup.ts" ]; then
  GIT="${E2B_GIT:-$DIR/e2b.git}"
  if [ -z "${E2B_GIT:-}" ] && ! git --git-dir="$GIT" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    git init -q --bare "$GIT"
    git --git-dir="$GIT" fetch -q --depth 1 https://github.com/e2b-dev/E2B.git "$COMMIT"
  fi
  mkdir -p "$DIR/$COMMIT"
  git --git-dir="$GIT" archive "$COMMIT" packages/js-sdk/tests | tar -x -C "$DIR/$COMMIT" --strip-components=2
fi
# The tests import `vitest` (and E2B's sources, aliased to `e2b`): resolved from this checkout.
ln -sfn "$ROOT/node_modules" "$DIR/$COMMIT/node_modules"
cd "$ROOT"
exec npx tsx scripts/judge/e2b-suites-run.ts "$DIR/$COMMIT" "$@"
