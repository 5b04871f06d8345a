#!/usr/bin/env bash
# The MCP conformance judge (not run by CI): @modelcontextprotocol/conformance's server
# scenarios against /mcp of a service started from this checkout. Installs the pinned
# version outside the project (MCP_CONFORMANCE_DIR, default ~/.cache/box-judge/mcp-conformance).
# 0.1.13 is the newest release that runs on Node 20 (0.1.14 and later import fs.globSync,
# Node 22). Per-scenario results: BENCHMARKS.md, "MCP conformance".
set -euo pipefail
VERSION=0.1.13
DIR="${MCP_CONFORMANCE_DIR:-$HOME/.cache/box-judge/mcp-conformance}"
PKG="$DIR/node_modules/@modelcontextprotocol/conformance"
if [ "$(node -p "try { require('$PKG/package.json').version } catch { '' }")" != "$VERSION" ]; then
  npm i --prefix "$DIR" --no-save "@modelcontextprotocol/conformance@$VERSION"
fi
cd "$(dirname "$0")/../.."
exec npx tsx scripts/judge/mcp-conformance-run.ts "$PKG/dist/index.js"
