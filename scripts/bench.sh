#!/usr/bin/env bash
# Runs every benchmark with the flags docs/benchmarks.md documents for it and
# writes the output to build/bench.txt. Each benchmark reports x_vs_bare: its
# time against a bare baseline (raw SQLite, a bare HTTP round trip, a plain
# directory walk, a command started outside the sandbox) measured in the same run; the window
# bench reports Loopdesk against a bare Wails window the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
TAGS=desktop,production,webkit2_41,sqlite_fts5
out=build/bench.txt
mkdir -p build
: >"$out"
run() {
  echo "== go test -run '^\$' -bench . $* -tags $TAGS" | tee -a "$out"
  go test -run '^$' -bench . "$@" -tags "$TAGS" | tee -a "$out"
}
run -benchtime=1x -count=3 ./backend/store/
run -benchtime=1x -count=3 ./backend/tools/
run -benchtime=1x -count=3 ./backend/checkpoint/
run -benchtime=500x -count=5 ./backend/provider/
run -bench '^BenchmarkRunnerTurn$' -benchtime=200x -count=5 ./backend/loop/
# Issue 19: a tool round at 10,000 rows vs 10 rows, and prefix stability / cache reads over 30 turns.
run -bench '^BenchmarkToolRound10k$' -benchtime=1x -count=3 ./backend/loop/
run -bench '^BenchmarkRequestBuild10k$' -benchtime=20x -count=3 ./backend/loop/
run -bench '^BenchmarkPrefixStability$' -benchtime=1x -count=3 ./backend/loop/
run -benchtime=100x -count=3 ./backend/sandbox/
# Issue 21: four children started in one turn against one child alone (x_four_vs_one, goal <= 1.3).
run -bench '^BenchmarkTaskChildren$' -benchtime=5x -count=5 ./backend/loop/
# Issue 36, Go side: opening, continuing, searching and listing in a journal of 1,000 sessions
# with one of 100,000 rows, each against its baseline in the same run (scripts/bench-history.sh).
echo "== scripts/bench-history.sh 3" | tee -a "$out"
scripts/bench-history.sh 3 2>&1 | tee -a "$out"
# Issue 36, the window's side: start, switch, open, scroll, memory and a tool round in the real
# window on the same journal (built once, kept in build/bench-journal), three runs.
echo "== scripts/bench-history-window.sh 3" | tee -a "$out"
scripts/bench-history-window.sh 3 2>&1 | tee -a "$out"
# MCP (needs node and npm ci in backend/mcp/testdata/npm for the server-everything rows;
# the later -bench flag overrides run's -bench .)
run -bench '^BenchmarkCall$' -benchtime=50x -count=3 ./backend/mcp/
run -bench '^BenchmarkStart$' -benchtime=5x -count=3 ./backend/mcp/
# ACP: first agent_message_chunk over `loopdesk acp` against the first delta of `loopdesk run
# --json` (needs node and npm ci in backend/acp/testdata/npm; measures build/bin/loopdesk).
LOOPDESK_ACP_BIN="$PWD/build/bin/loopdesk" run -bench '^BenchmarkFirstChunk$' -benchtime=20x -count=3 ./backend/acp/
# A command's start: `loopdesk --version` and `--help` against /bin/true (goal <= 50 ms), and the
# window program, which links GTK and WebKit, started the same way.
echo "== scripts/bench-binary.sh --start build/bin/loopdesk build/bin/loopdesk-window" | tee -a "$out"
scripts/bench-binary.sh --start build/bin/loopdesk build/bin/loopdesk-window 2>&1 | tee -a "$out"
# The window against a bare Wails window with Wails' defaults: first paint and idle memory
# (needs build/bin/loopdesk and loopdesk-window).
echo "== scripts/bench-window.sh 8" | tee -a "$out"
scripts/bench-window.sh 8 2>&1 | tee -a "$out"
# Issue 18: the window's memory with a 20-row session open, before and after a 2,203-row
# session (200 tool rounds through the fake model) streamed into it; frames dropped while a
# reply streams, per WebKit GPU policy.
echo "== scripts/bench-memory.sh all" | tee -a "$out"
scripts/bench-memory.sh all 2>&1 | tee -a "$out"
# Issue 35: four sessions streaming and two waiting for approval for 20 minutes in the real
# window (RSS and PSS at the end against minute 2, goal <= 1.10), then the CPU with nothing
# streaming (goal <= 1 % of a core). BENCH_MANY_SECONDS shortens it.
echo "== scripts/bench-many.sh" | tee -a "$out"
scripts/bench-many.sh 2>&1 | tee -a "$out"
# The inbox: a call waiting in a background session on screen in the inbox (p95 <= 100 ms), and
# approving from the inbox against the session's own card (x_inbox_vs_card <= 1.2); needs
# build/bin/loopdesk-dev and build/bin/fakeai.
echo "== scripts/bench-inbox.sh 20" | tee -a "$out"
scripts/bench-inbox.sh 20 2>&1 | grep -E '^(arrive|approve|x_)' | tee -a "$out"
echo "wrote $out"
