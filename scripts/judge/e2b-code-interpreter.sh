#!/usr/bin/env bash
# The E2B code-interpreter judge (issue 33; not run by CI): e2b-dev/code-interpreter's own
# js/tests, unchanged, run with the stock @e2b/code-interpreter from node_modules against a
# service started from this checkout (real microVMs), one test file at a time, with only
# configuration changed: E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY and longer timeouts.
# The tests are extracted at a pinned commit outside the project
# (E2B_CI_DIR, default ~/.cache/box-judge/code-interpreter-<commit>) from E2B_CI_REPO (a git
# URL, default GitHub, or a local git directory). Arguments: test files (relative to js/,
# e.g. tests/charts/pie.test.ts) to run only those. Per-file results: BENCHMARKS.md,
# "E2B code-interpreter judge". Set BOX_IMAGE_CACHE to reuse a built guest image.
set -euo pipefail
COMMIT=7df1757bfd5baa037f909ce97c2dbe014da973c0
SRC="${E2B_CI_REPO:-https://github.com/e2b-dev/code-interpreter.git}"
DIR="${E2B_CI_DIR:-$HOME/.cache/box-judge/code-interpreter-${COMMIT:0:12}}"
if [ ! -f "$DIR/js/tests/setup.ts" ]; then
  mkdir -p "$DIR"
  if [ -d "$SRC" ]; then
    git --git-dir="$SRC" archive "$COMMIT" js/tests | tar -x -C "$DIR"
  else
    rm -rf "$DIR/.src"
    git clone -q --filter=blob:none --no-checkout "$SRC" "$DIR/.src"
    git --git-dir="$DIR/.src/.git" archive "$COMMIT" js/tests | tar -x -C "$DIR"
  fi
fi
cd "$(dirname "$0")/../.."
exec npx tsx scripts/judge/e2b-code-interpreter-run.ts "$DIR/js" "$@"
