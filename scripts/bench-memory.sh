#!/usr/bin/env bash
# Does Loopdesk's window stay flat? In the real window (WebKit, under Xvfb, no session bus):
# the memory of the whole process tree (Go process + WebKit processes; RSS and PSS from
# /proc/PID/smaps_rollup) with a 20-row session open, then again with the same session open
# after a session of ROUNDS tool rounds of CALLS calls each (the scripted fake model,
# backend/fakeai) has streamed into the window: ROUNDS*(2*CALLS+1)+3 rows (each call has its
# approval row and its result), 2,203 by default.
# A second run measures smoothness in the same real window: frames dropped while the fake
# streams 6,000 words, and while idle, once per WebKit GPU policy.
# `speed` (not part of all) times, in the same real window, what the page's JavaScript speed
# decides: opening a 10,000-row session, its chunk table, a long markdown reply; once with
# the product's JavaScriptCore options and once with other ones (BENCH_SPEED_OTHER, default
# JSC_useDFGJIT=true: every JIT tier on), BENCH_PAIRS (3) times, alternating.
#   scripts/bench-memory.sh [memory|frames|all|speed]      default all
# The window is the product built with the bench tag, which only adds bench_hook.go (the
# page driver testdata/benchwindow/drive.js and the measuring hook). Env: BENCH_ROUNDS (200),
# BENCH_CALLS (5), BENCH_REPEATS (2: a second long session streams in after the first, to
# tell a high-water mark from growth), BENCH_IDLE_SECONDS (8), BENCH_GPU (the product's policy unless set).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
source scripts/bench-lib.sh
bench_window_under_xvfb "$@"
rounds=${BENCH_ROUNDS:-200}
calls=${BENCH_CALLS:-5}
repeats=${BENCH_REPEATS:-2}
idle_ms=$((${BENCH_IDLE_SECONDS:-8} * 1000))
bench_fake bench-memory

# home NAME: a fresh home whose database holds the 20-row session "twenty rows".
home() {
  local h=$scratch/$1 at
  mkdir -p "$h/config" "$h/data"
  at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  python3 - "$h/twenty.jsonl" "$at" <<'PY'
import json, sys
path, at = sys.argv[1], sys.argv[2]
lines = [{"type": "session", "format": 1, "session": {"id": "twenty", "title": "twenty rows", "workspace": "",
          "model": "fake-model", "parent_id": "", "fork_seq": 0, "created_at": at, "updated_at": at}}]
for seq in range(1, 21):
    g, k = (seq - 1) // 4, (seq - 1) % 4
    kind = ["user", "assistant", "tool_result", "assistant"][k]
    payload = [{"text": f"Question {g}: what is in file {g}?"},
               {"text": "", "reasoning": "", "tool_calls": [{"id": f"c{g}", "name": "read_file", "arguments": json.dumps({"path": f"src/file{g}.go"})}]},
               {"call_id": f"c{g}", "name": "read_file", "content": f"package main\n\n// file {g}\nfunc f{g}() int {{ return {g} }}\n", "is_error": False},
               {"text": f"File {g} defines **f{g}**, which returns `{g}`.\n\n- one\n- two", "reasoning": "", "tool_calls": []}][k]
    lines.append({"type": "chunk", "seq": seq, "kind": kind, "payload": payload, "run_id": "", "created_at": at})
open(path, "w").write("\n".join(json.dumps(l) for l in lines) + "\n")
PY
  LOOPDESK_DB=$h/loopdesk.db XDG_CONFIG_HOME=$h/config XDG_DATA_HOME=$h/data HOME=$h \
    build/bin/loopdesk-bench sessions import "$h/twenty.jsonl" >/dev/null
  if [[ -n ${BENCH_BIG:-} ]]; then
    LOOPDESK_DB=$h/loopdesk.db XDG_CONFIG_HOME=$h/config XDG_DATA_HOME=$h/data HOME=$h \
      build/bin/loopdesk-bench sessions import "$BENCH_BIG" >/dev/null
  fi
  echo "$h"
}

# window NAME ARGS_JSON: runs the window on a fresh home until the driver is done; its marks
# go to $scratch/NAME.jsonl.
window() {
  local name=$1 args=$2 h
  h=$(home "$name")
  curl -fsS -X POST "$control/reset" >/dev/null
  curl -fsS -X POST --data-binary @"$scratch/replies.json" "$control/enqueue" >/dev/null
  env HOME="$h" XDG_CONFIG_HOME="$h/config" XDG_DATA_HOME="$h/data" LOOPDESK_DB="$h/loopdesk.db" \
    OPENAI_BASE_URL="$url" OPENAI_API_KEY=bench-key LOOPDESK_MODEL=fake-model \
    LOOPDESK_BENCH_JS="$PWD/testdata/benchwindow/drive.js" LOOPDESK_BENCH_OUT="$scratch/$name.jsonl" \
    LOOPDESK_BENCH_ARGS="$args" ${BENCH_GPU:+LOOPDESK_BENCH_GPU=$BENCH_GPU} \
    timeout 3600 build/bin/loopdesk-bench >"$scratch/$name.log" 2>&1 || true
  if ! [[ -s $scratch/$name.jsonl ]] || grep -q '"label":"error"' "$scratch/$name.jsonl" ||
    ! grep -q '"label":"\(open20_after\|frames\|speed\)"' "$scratch/$name.jsonl"; then
    cat "$scratch/$name.jsonl" "$scratch/$name.log" >&2 2>/dev/null
    echo "bench-memory: the $name run failed" >&2
    return 1
  fi
}

if [[ $what == all || $what == memory ]]; then
  python3 - "$rounds" "$calls" "$repeats" >"$scratch/replies.json" <<'PY'
import json, sys
rounds, calls, repeats = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = []
for _ in range(repeats):
    out += [{"kind": "text", "calls": [{"name": "read_file", "arguments": json.dumps({"path": f"notes/r{r}-c{c}.txt"})} for c in range(calls)]}
            for r in range(rounds)]
    out.append({"kind": "text", "text": "Done: " + " ".join(["word"] * 50)})
print(json.dumps(out))
PY
  window memory "{\"scenario\":\"memory\",\"idle_ms\":$idle_ms,\"repeats\":$repeats}"
  python3 - "$scratch/memory.jsonl" "$rounds" "$calls" <<'PY'
import json, sys
m = {}
for line in open(sys.argv[1]):
    r = json.loads(line); m[r["label"]] = r
b, s, a = m["open20_before"], m["streamed"], m["open20_after"]
print(f"memory: {sys.argv[2]} rounds x {sys.argv[3]} calls streamed in {s['data']['ms']/1000:.1f} s, last row {s['data']['last_seq']}")
for k, r in (("20 rows open, before", b), ("just after the stream", s), ("20 rows open, after", a)):
    each = "  ".join(f"{p['name']} {p['rss_kb']/1024:.0f}/{p['pss_kb']/1024:.0f}" for p in r["by_process"])
    g = r["go"]
    print(f"  {k:24s} rss {r['rss_kb']/1024:7.1f} MB  pss {r['pss_kb']/1024:7.1f} MB  dom {r['data'].get('dom_nodes', '-')}  (rss/pss MB: {each})")
    split = "  ".join(f"{p['name']} {p.get('pss_anon_kb', 0)/1024:.0f}/{p.get('pss_file_kb', 0)/1024:.0f}" for p in r["by_process"])
    print(f"  {'':24s} pss anonymous/file MB: {split}")
    print(f"  {'':24s} Go heap in use {g['heap_inuse_kb']/1024:.1f} MB, idle {(g['heap_idle_kb']-g['heap_released_kb'])/1024:.1f} MB not returned, from the OS {g['sys_kb']/1024:.1f} MB")
print(f"x_after_vs_before: rss {a['rss_kb']/b['rss_kb']:.3f}  pss {a['pss_kb']/b['pss_kb']:.3f}  (goal <= 1.10)")
n = 2
while f"open20_after_{n}" in m:
    r = m[f"open20_after_{n}"]
    each = "  ".join(f"{p['name']} {p['rss_kb']/1024:.0f}" for p in r["by_process"])
    print(f"after long session {n}: rss {r['rss_kb']/1024:.1f} MB (rss MB: {each}); x_vs_before {r['rss_kb']/b['rss_kb']:.3f}, x_vs_after_1 {r['rss_kb']/a['rss_kb']:.3f}")
    n += 1
PY
fi

if [[ $what == all || $what == frames ]]; then
  python3 -c 'import json; print(json.dumps([{"kind": "text", "delay_ms": 1, "text": " ".join("word\n\n" if i % 50 == 49 else "word" for i in range(6000))}]))' >"$scratch/replies.json"
  for gpu in OnDemand Never; do
    BENCH_GPU=$gpu window "frames-$gpu" '{"scenario":"frames","seconds":4}'
    python3 - "$scratch/frames-$gpu.jsonl" "$gpu" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '"frames"' in l][0]
i, s = r["data"]["idle"], r["data"]["streaming"]
print(f"frames {sys.argv[2]:8s}: idle 4 s {i['frames']} frames, {i['dropped']} dropped; streaming 4 s {s['frames']} frames, "
      f"{s['dropped']} dropped, worst {s['worst_ms']} ms, {s['deltas']} deltas; rss {r['rss_kb']/1024:.1f} MB pss {r['pss_kb']/1024:.1f} MB")
PY
  done
fi

if [[ $what == speed ]]; then
  # The 10,000-row session of e2e/tests/ui-measure.test.mjs: question, tool call, result, answer.
  BENCH_BIG=$scratch/big.jsonl
  export BENCH_BIG
  python3 - "$BENCH_BIG" <<'PY'
import json, sys, datetime
at = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
lines = [{"type": "session", "format": 1, "session": {"id": "big", "title": "ten thousand rows", "workspace": "",
          "model": "fake-model", "parent_id": "", "fork_seq": 0, "created_at": at, "updated_at": at}}]
for seq in range(1, 10001):
    g, k = (seq - 1) // 4, (seq - 1) % 4
    payload = [{"text": f"Question {g}: what is in file {g}?"},
               {"text": "", "reasoning": "", "tool_calls": [{"id": f"c{g}", "name": "read_file", "arguments": json.dumps({"path": f"src/file{g}.go"})}]},
               {"call_id": f"c{g}", "name": "read_file", "content": f"package main\n\n// file {g}\nfunc f{g}() int {{ return {g} }}\n", "is_error": False},
               {"text": f"File {g} defines **f{g}**, which returns `{g}`.\n\n- one\n- two", "reasoning": "", "tool_calls": []}][k]
    lines.append({"type": "chunk", "seq": seq, "kind": ["user", "assistant", "tool_result", "assistant"][k], "payload": payload, "run_id": "", "created_at": at})
open(sys.argv[1], "w").write("\n".join(json.dumps(l) for l in lines) + "\n")
PY
  # A long markdown reply: 60 sections, each a paragraph, a list and a Go fence.
  python3 -c '
import json
part = "## Part {0}\n\nSome **bold** and `code` words, then a list:\n\n- one\n- two\n\n```go\nfunc f{0}() int {{\n\treturn {0}\n}}\n```\n\n"
print(json.dumps([{"kind": "text", "delay_ms": 1, "text": "".join(part.format(i) for i in range(60))}]))' >"$scratch/replies.json"
  for i in $(seq "${BENCH_PAIRS:-3}"); do
    for jit in product other; do
      # The other side's options: every JIT tier by default, BENCH_SPEED_OTHER to compare another
      # (e.g. JSC_useGenerationalGC=true).
      if [[ $jit == other ]]; then export ${BENCH_SPEED_OTHER:-JSC_useDFGJIT=true}; else unset JSC_useDFGJIT JSC_useGenerationalGC; fi
      [[ $jit == other && $i == 1 ]] && echo "other: ${BENCH_SPEED_OTHER:-JSC_useDFGJIT=true}"
      window "speed-$jit-$i" "{\"scenario\":\"speed\",\"tries\":${BENCH_TRIES:-5}}"
      python3 - "$scratch/speed-$jit-$i.jsonl" "$jit" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '"speed"' in l][0]["data"]
print(f"speed {sys.argv[2]:7s}: open 10,000 rows {r['median_open_10k_ms']} ms {r['open_10k_ms']}; chunk table {r['median_table_10k_ms']} ms {r['table_10k_ms']}; long markdown reply {r['reply_ms']} ms")
PY
    done
  done
  unset JSC_useDFGJIT JSC_useGenerationalGC
fi
