#!/usr/bin/env bash
# Many agents at once in the real window (WebKit, under Xvfb, no session bus): two sessions
# wait for approval — the person has the first open — while four stream in the background,
# each started with "Run in a new session" and replaced by another when its run ends, for
# BENCH_MANY_SECONDS (default 1200: 20 minutes). Reports the memory of the whole process
# tree (Go process + WebKit processes; RSS and PSS from /proc/PID/smaps_rollup) at
# BENCH_MANY_REF_SECONDS (default 120: minute 2) and at the end, and their ratio (goal
# <= 1.10); then, the four stopped and the two still waiting, the CPU the process tree uses
# over BENCH_MANY_IDLE_SECONDS (default 30) with nothing streaming (goal <= 1 % of a core).
# The page driver is testdata/benchwindow/many.js; the window is the product built with the
# bench tag (bench_hook.go records the marks). The fake model streams each round's 80 words
# at BENCH_MANY_DELAY_MS (40) apart, then a read_file call.
#   scripts/bench-many.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh
bench_window_under_xvfb "$@"
seconds=${BENCH_MANY_SECONDS:-1200}
ref=${BENCH_MANY_REF_SECONDS:-120}
idle=${BENCH_MANY_IDLE_SECONDS:-30}
delay=${BENCH_MANY_DELAY_MS:-40}
scratch=$(mktemp -d)
app_pid=
cleanup() {
  [[ -n $app_pid ]] && kill "$app_pid" 2>/dev/null
  if [[ -n ${BENCH_KEEP:-} ]]; then echo "bench-many: kept $scratch" >&2; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

# The fake model (fake_start: it exits with this script, its stdin closing).
source scripts/screenshot-lib.sh
fake_start
control=${url%/v1}/_fake

# Replies routed by each conversation's first message (fakeai's ?for=): the two waiting
# sessions get a shell call that asks; the streaming ones get rounds, more than they can use.
python3 - "$seconds" "$delay" "$scratch" <<'PY'
import json, sys
seconds, delay, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
wait = [{"kind": "text", "text": "", "calls": [{"name": "run_shell_command", "arguments": json.dumps({"command": f"echo {i}"})}]} for i in range(2)]
# A round lasts about 80 * delay ms plus the call; four sessions stream at once.
rounds = int(seconds * 4 / (80 * delay / 1000) * 1.6) + 200
words = " ".join(f"word{i % 13}" for i in range(80))
stream = [{"kind": "text", "delay_ms": delay, "text": words,
           "calls": [{"name": "read_file", "arguments": json.dumps({"path": f"notes/r{r}.txt"})}]} for r in range(rounds)]
json.dump(wait, open(f"{out}/wait.json", "w"))
json.dump(stream, open(f"{out}/stream.json", "w"))
PY
curl -fsS -X POST --data-binary @"$scratch/wait.json" "$control/enqueue?for=wait-task" >/dev/null
curl -fsS -X POST --data-binary @"$scratch/stream.json" "$control/enqueue?for=stream-task" >/dev/null

h=$scratch/home
mkdir -p "$h/config" "$h/data"
marks=$scratch/many.jsonl
env HOME="$h" XDG_CONFIG_HOME="$h/config" XDG_DATA_HOME="$h/data" LOOPDESK_DB="$h/loopdesk.db" \
  OPENAI_BASE_URL="$url" OPENAI_API_KEY=bench-key LOOPDESK_MODEL=fake-model \
  LOOPDESK_BENCH_JS="$PWD/testdata/benchwindow/many.js" LOOPDESK_BENCH_OUT="$marks" \
  LOOPDESK_BENCH_ARGS="{\"seconds\":$seconds,\"ref_s\":$ref,\"idle_s\":$idle}" \
  timeout $((seconds + idle + 600)) build/bin/loopdesk-bench >"$scratch/app.log" 2>&1 &
app_pid=$!

# cpu_ticks: user + system ticks of the app and its descendants (the WebKit processes);
# BENCH_MANY_TREE=1 prints each process's.
cpu_ticks() {
  python3 - "$app_pid" <<'PY'
import os, sys
root, kids, ticks = int(sys.argv[1]), {}, {}
for p in os.listdir("/proc"):
    if not p.isdigit(): continue
    try: s = open(f"/proc/{p}/stat").read()
    except OSError: continue
    f = s[s.rindex(")") + 2:].split()
    kids.setdefault(int(f[1]), []).append(int(p))
    # utime + stime, and cutime + cstime: a child that exits and is reaped keeps counting.
    ticks[int(p)] = int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
todo, total = [root], 0
while todo:
    p = todo.pop()
    total += ticks.get(p, 0)
    if os.environ.get("BENCH_MANY_TREE"):
        print(p, open(f"/proc/{p}/comm").read().strip(), ticks.get(p, 0), file=sys.stderr)
    todo += kids.get(p, [])
print(total)
PY
}
until grep -qs '"label":"\(idle_start\|error\)"' "$marks"; do
  kill -0 "$app_pid" 2>/dev/null || break
  sleep 1
done
if grep -qs '"label":"idle_start"' "$marks"; then
  sleep 1
  t0=$(cpu_ticks) s0=$(date +%s.%N)
  sleep "$idle"
  t1=$(cpu_ticks) s1=$(date +%s.%N)
fi
wait "$app_pid" || true
app_pid=
if ! grep -qs '"label":"idle_end"' "$marks" || grep -qs '"label":"error"' "$marks"; then
  cat "$marks" "$scratch/app.log" >&2 2>/dev/null
  echo "bench-many: the run failed" >&2
  exit 1
fi
python3 - "$marks" "$t0" "$t1" "$s0" "$s1" "$(getconf CLK_TCK)" "$seconds" <<'PY'
import json, sys
m = {}
for line in open(sys.argv[1]):
    r = json.loads(line); m[r["label"]] = r
t0, t1, s0, s1, hz, seconds = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
ref, end = m["ref"], m["end"]
print(f"many: 4 streaming + 2 waiting for {seconds} s; {end['data']['started']} streaming sessions started in all; "
      f"the person stayed in the first waiting session: {end['data']['open']}")
for k, r in (("at " + str(ref["data"]["s"]) + " s", ref), ("at the end", end)):
    each = "  ".join(f"{p['name']} {p['rss_kb']/1024:.0f}/{p['pss_kb']/1024:.0f}" for p in r["by_process"])
    print(f"  {k:12s} rss {r['rss_kb']/1024:7.1f} MB  pss {r['pss_kb']/1024:7.1f} MB  (rss/pss MB: {each})")
curve = "  ".join(f"{m[k]['data']['s']//60}:{m[k]['rss_kb']/1024:.0f}" for k in sorted((k for k in m if k[0] == "m" and k[1:].isdigit()), key=lambda k: int(k[1:])))
print(f"  rss MB each minute: {curve}")
print(f"x_end_vs_ref: rss {end['rss_kb']/ref['rss_kb']:.3f}  pss {end['pss_kb']/ref['pss_kb']:.3f}  (goal <= 1.10)")
print(f"cpu with nothing streaming (2 calls waiting): {100*(t1-t0)/hz/(s1-s0):.2f} % of a core over {s1-s0:.0f} s  (goal <= 1 %)")
w = m["idle_end"].get("data") or {}
if w:
    print(f"  what woke the page meanwhile: {w['timeouts']} timeouts, {w['intervals']} interval ticks, {w['frames']} frames, "
          f"CSS animations {w['animations'] or 'none'}, DOM changes {w['mutations'] or 'none'} ({w['rows']} rows in the session list), "
          f"events from Go {w['events'] or 'none'}, calls to Go {w['calls'] or 'none'}")
PY
