#!/usr/bin/env bash
# The inbox's latencies in the real page (e2e/bench-inbox.mjs): a call waiting in a background
# session on screen in the inbox (p95 against 100 ms), a call waiting in a `loopdesk run` process
# of its own on screen in the window's inbox (p95 against 200 ms), and approving from the inbox against
# approving on the session's own card, click to tool_started (ratio against 1.2).
#   scripts/bench-inbox.sh [SAMPLES]      default 20 of each
# Needs build/bin/loopdesk-dev, build/bin/fakeai (make builds them) and Xvfb; docs/benchmarks.md,
# "Inbox", has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
for b in loopdesk-dev fakeai; do
  [[ -x build/bin/$b ]] || { echo "bench-inbox: build/bin/$b missing (make build/bin/$b)" >&2; exit 1; }
done
exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" node e2e/bench-inbox.mjs "${1:-20}"
