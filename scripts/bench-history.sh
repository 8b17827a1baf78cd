#!/usr/bin/env bash
# History at any size (Go side): opening, continuing, searching and listing in a journal of
# 1,000 sessions with one of 100,000 rows (compacted every 400 rows), written through the
# store's appends and runs; each figure a ratio against its baseline in the same run
# (backend/historybench). Three runs by default: scripts/bench-history.sh [COUNT].
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-3}
go test -run '^$' -bench '^BenchmarkHistory' -benchtime=1x -count="$count" \
  -tags desktop,production,webkit2_41,sqlite_fts5 ./backend/historybench/
