#!/usr/bin/env bash
# History at any size, the window's side: the real window (the product built with the bench tag,
# WebKit under Xvfb, no session bus) on a copy of the bench journal (backend/historybench: 1,000
# sessions, more than 2 GB, built once and kept in build/bench-journal). Each figure against its
# baseline in the same run:
#   start    window start to the session list painted, against the same start on an empty journal
#   switch   between two 10,000-row sessions, to the last rows painted (p95)
#   open     the 100,000-row session to its last rows painted, against the 20-row one
#   scroll   the big session's conversation (a fling upwards) and its chunk table (top to bottom)
#   memory   RSS and PSS of the window process and its WebKit processes, the 100,000-row session
#            open against the 20-row one (separate windows)
#   round    one tool round in a 10,000-row session, the tool's result to the answer painted,
#            against the 10-row session
# The page driver is testdata/benchwindow/history.js. Runs: scripts/bench-history-window.sh [RUNS]
# (3). Env: BENCH_STARTS (5 pairs a run), BENCH_ROUNDS (11), BENCH_IDLE_SECONDS (8), BENCH_KEEP,
# BENCH_JOURNAL=tiny (the tiny journal: to try the bench, not to measure).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh
bench_window_under_xvfb "$@"
runs=${1:-3}
starts=${BENCH_STARTS:-5}
rounds=${BENCH_ROUNDS:-11}
idle_ms=$((${BENCH_IDLE_SECONDS:-8} * 1000))
bench_fake bench-history-window

go run -tags desktop,production,webkit2_41,sqlite_fts5 ./backend/historybench/cmd/benchjournal \
  ${BENCH_JOURNAL:+-$BENCH_JOURNAL} >"$scratch/journal.json"
python3 - "$scratch/journal.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"journal: {j['spec']['sessions']} sessions, {j['rows']:,} rows, {j['bytes']/2**30:.2f} GiB (generator v{j['version']}, built in {j['build_seconds']:.0f} s)")
PY

# args SCENARIO [EXTRA_JSON]: the driver's arguments, the journal's sessions included.
args() {
  python3 - "$scratch/journal.json" "$1" "${2:-{\}}" <<'PY'
import json, sys
j, extra = json.load(open(sys.argv[1])), json.loads(sys.argv[3])
s = j["spec"]
out = {"scenario": sys.argv[2], "big_rows": s["big_rows"], "long_rows": s["long_rows"],
       "ids": {"big": j["big"], "small": j["small"], "ten": j["ten"], "long": j["long"][:2]},
       "titles": {"big": "the long one", "small": "twenty rows", "ten": "ten rows",
                  "long": ["ten thousand rows A", "ten thousand rows B"]}}
out.update(extra)
print(json.dumps(out))
PY
}

# window NAME DB ARGS_JSON: runs the window on DB until the driver is done; its marks go to
# $scratch/NAME.jsonl, with the launch's wall clock (ms) in $scratch/NAME.t0.
window() {
  local name=$1 db=$2 h=$scratch/home-$1
  mkdir -p "$h/config" "$h/data"
  date +%s%3N >"$scratch/$name.t0"
  env HOME="$h" XDG_CONFIG_HOME="$h/config" XDG_DATA_HOME="$h/data" LOOPDESK_DB="$db" \
    OPENAI_BASE_URL="$url" OPENAI_API_KEY=bench-key LOOPDESK_MODEL=fake-model \
    LOOPDESK_BENCH_JS="$PWD/testdata/benchwindow/history.js" LOOPDESK_BENCH_OUT="$scratch/$name.jsonl" \
    LOOPDESK_BENCH_ARGS="$3" timeout 1800 build/bin/loopdesk-bench >"$scratch/$name.log" 2>&1 || true
  if ! [[ -s $scratch/$name.jsonl ]] || grep -q '"label":"error"' "$scratch/$name.jsonl"; then
    cat "$scratch/$name.jsonl" "$scratch/$name.log" >&2 2>/dev/null
    echo "bench-history-window: the $name window failed" >&2
    return 1
  fi
}

for run in $(seq "$runs"); do
  echo "run $run: $(date -u +%H:%M) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  full=$scratch/full-$run.db
  empty=$scratch/empty-$run.db
  cp --reflink=auto "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' "$scratch/journal.json")" "$full"
  # A first start of each (not counted): the empty journal gets its tables, both are read once.
  window "warm-full-$run" "$full" "$(args start '{"rows":10}')"
  window "warm-empty-$run" "$empty" "$(args start '{"rows":0}')"
  for i in $(seq "$starts"); do
    for side in full empty; do
      [[ $((i % 2)) == 0 ]] && side=$([[ $side == full ]] && echo empty || echo full)
      db=$full rows=10
      [[ $side == empty ]] && db=$empty rows=0
      window "start-$side-$run-$i" "$db" "$(args start "{\"rows\":$rows}")"
    done
  done
  for side in big small; do
    window "hold-$side-$run" "$full" "$(python3 - "$scratch/journal.json" "$side" "$idle_ms" <<'PY'
import json, sys
j, side, idle = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
print(json.dumps({"scenario": "hold", "idle_ms": idle, "id": j[side],
                  "title": {"big": "the long one", "small": "twenty rows"}[side],
                  "last": {"big": j["spec"]["big_rows"], "small": 20}[side]}))
PY
)"
  done
  curl -fsS -X POST "$control/reset" >/dev/null
  python3 -c '
import json, sys
n = 2 * (int(sys.argv[1]) + 1)
out = []
for k in range(n):
    out += [{"kind": "text", "calls": [{"name": "list_dir", "arguments": json.dumps({"path": "."})}]},
            {"kind": "text", "text": f"Listed the folder, round {k}."}]
print(json.dumps(out))' "$rounds" | curl -fsS -X POST --data-binary @- "$control/enqueue" >/dev/null
  window "history-$run" "$full" "$(args history "{\"rounds\":$rounds}")"
  curl -fsS "$control/timings" >"$scratch/timings-$run.json"
  python3 - "$scratch" "$run" "$starts" <<'PY'
import json, os, statistics, sys
d, run, starts = sys.argv[1], sys.argv[2], int(sys.argv[3])
def marks(name):
    return {m["label"]: m for m in map(json.loads, open(os.path.join(d, name + ".jsonl")))}
def t0(name):
    return int(open(os.path.join(d, name + ".t0")).read())
med = statistics.median
st = {"full": [], "empty": []}
for side in st:
    for i in range(1, starts + 1):
        n = f"start-{side}-{run}-{i}"
        st[side].append(marks(n)["start"]["data"]["painted_unix_ms"] - t0(n))
print(f"  start to the list painted: full journal median {med(st['full']):.0f} ms {st['full']}, empty {med(st['empty']):.0f} ms {st['empty']}; "
      f"x_full_vs_empty {med(st['full']) / med(st['empty']):.2f} (goal <= 1.2)")
h = marks(f"history-{run}")["history"]["data"]
print(f"  switch between two 10,000-row sessions: p95 {h['switch_p95_ms']} ms, median {h['switch_median_ms']} ms {h['switch_ms']} (goal p95 <= 100 ms)")
ob, os_ = med(h["open_big_ms"]), med(h["open_small_ms"])
print(f"  open the 100,000-row session: median {ob:.0f} ms {h['open_big_ms']}; the 20-row one {os_:.0f} ms {h['open_small_ms']}; "
      f"x_big_vs_small {ob / os_:.2f} (goal <= 1 s and <= 3x)")
for k, what in (("scroll_conversation", "its conversation, a fling upwards"), ("scroll_table", "its chunk table, top to bottom")):
    s = h[k]
    extra = f", earliest row reached {s['first_seq_seen']}" if "first_seq_seen" in s else f", last row shown {s['last_row_shown']}"
    print(f"  scroll {what}: {s['on_time_pct']} % of frames on time ({s['frames']} painted, {s['missed']} missed), worst {s['worst_ms']} ms, "
          f"at most {s['rows_in_dom_max']} rows in the DOM{extra} (goal >= 95 %, worst <= 50 ms)")
big, small = marks(f"hold-big-{run}")["hold"], marks(f"hold-small-{run}")["hold"]
def procs(m):
    return ", ".join(f"{p['name']} {p['rss_kb']/1024:.0f}/{p['pss_kb']/1024:.0f}" for p in m["by_process"])
print(f"  memory, 100,000 rows open: rss {big['rss_kb']/1024:.0f} MB pss {big['pss_kb']/1024:.0f} MB ({procs(big)}; dom {big['data']['dom_nodes']})")
print(f"  memory, 20 rows open:      rss {small['rss_kb']/1024:.0f} MB pss {small['pss_kb']/1024:.0f} MB ({procs(small)}; dom {small['data']['dom_nodes']})")
print(f"  x_big_vs_small memory: rss {big['rss_kb']/small['rss_kb']:.3f} pss {big['pss_kb']/small['pss_kb']:.3f} (goal <= 1.2)")
# The fake model's time on each round's answer request (the second of the round's two).
tm = [t for t in json.load(open(os.path.join(d, f"timings-{run}.json"))) if t["path"] == "/v1/chat/completions"]
by_at = {}
for t in tm:
    by_at[t["started_unix_ms"]] = t
def without(r):
    after = [t for t in tm if t["started_unix_ms"] >= r["result_at"]]
    return r["ms"] - (after[0]["server_ms"] if after else 0)
rt, rl = h["rounds"]["ten"], h["rounds"]["long"]
mt, ml = med([r["ms"] for r in rt]), med([r["ms"] for r in rl])
wt, wl = med([without(r) for r in rt]), med([without(r) for r in rl])
print(f"  tool round, result to answer painted: 10 rows {mt:.0f} ms {[r['ms'] for r in rt]}, 10,000 rows {ml:.0f} ms {[r['ms'] for r in rl]}; "
      f"x_long_vs_ten {ml / max(1, mt):.2f}, without the fake model's time {wt:.1f} / {wl:.1f} ms: {wl / max(1, wt):.2f} (goal <= 1.5)")
PY
  rm -f "$full" "$empty"*
done
