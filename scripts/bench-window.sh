#!/usr/bin/env bash
# Loopdesk's window against a bare Wails v2 window with Wails' defaults (testdata/barewails:
# no Linux options, so WebKit GPU policy Never), side by
# side in the same run: time from start to first paint, then memory of the
# whole process tree (the app and its WebKit processes) after idling.
#   scripts/bench-window.sh [PAIRS]      default 3 alternating pairs
# Needs build/bin/loopdesk and loopdesk-window (make bench builds them), Xvfb, xdotool, ImageMagick
# (scripts/bootstrap.sh test). Runs on its own Xvfb display and without a
# D-Bus session bus, so a Loopdesk already open on this desktop neither takes
# the launch (single instance) nor is disturbed. (A fresh private bus made both
# windows wait about 5 s for service activation; that measures D-Bus, not the
# window.) Prints one line per run and the ratios; docs/benchmarks.md explains
# the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}
idle=${BENCH_IDLE_SECONDS:-8}

if [[ -z ${BENCH_WINDOW_INNER:-} ]]; then
  TAGS=desktop,production,webkit2_41,sqlite_fts5
  for b in loopdesk loopdesk-window; do
    [[ -x build/bin/$b ]] || { echo "bench-window: build/bin/$b missing (make build)" >&2; exit 1; }
  done
  go build -tags "$TAGS" -ldflags "-w -s" -o build/bin/barewails ./testdata/barewails
  go build -o build/bin/paintwatch ./testdata/paintwatch
  BENCH_WINDOW_INNER=1 exec env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR \
    xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$@"
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Both windows run from copies written with write(), as an installer writes them: how much of
# a binary a run keeps resident depends on how its file entered the page cache, and the
# linker's own output kept 40.9 MB of Loopdesk's 47 MB binary resident where the same bytes
# copied (or read cold from disk) kept 24.6 MB (docs/benchmarks.md, "second pass").
# loopdesk execs the window program beside it, as a person's launch does.
cp build/bin/barewails build/bin/loopdesk build/bin/loopdesk-window "$scratch/"

# tree PID: PID and all its descendants.
tree() {
  local p
  echo "$1"
  for p in $(pgrep -P "$1" || true); do tree "$p"; done
}

# measure NAME TITLE CMD...: one run; prints "NAME window_ms paint_ms rss_kb pss_kb procs".
# Times run from just before the start to the window being viewable and to its
# first non-blank contents (testdata/paintwatch polls the X server).
measure() {
  local name=$1 title=$2
  shift 2
  local home="$scratch/$name-home" t0 pid times
  rm -rf "$home" && mkdir -p "$home"
  t0=$(date +%s%3N)
  HOME=$home XDG_DATA_HOME=$home/data XDG_CONFIG_HOME=$home/config LOOPDESK_DB=$home/loopdesk.db \
    "$@" >"$scratch/$name.log" 2>&1 &
  pid=$!
  if ! times=$(build/bin/paintwatch -title "$title" -since "$t0" -timeout 60s); then
    cat "$scratch/$name.log" >&2
    kill "$pid" 2>/dev/null || true
    return 1
  fi
  sleep "$idle" # the measurement: memory once the window has been idle this long
  local p rss=0 pss=0 anon=0 n=0 pids
  pids=$(tree "$pid")
  for p in $pids; do
    [[ -r /proc/$p/smaps_rollup ]] || continue
    read -r r s a < <(awk '/^Rss:/ {r=$2} /^Pss:/ {s=$2} /^Pss_Anon:/ {a=$2} END {print r+0, s+0, a+0}' "/proc/$p/smaps_rollup")
    rss=$((rss + r)) pss=$((pss + s)) anon=$((anon + a)) n=$((n + 1))
  done
  kill $pids 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # The next run must not find this one's processes (or its single-instance name).
  # Zombies (WebKit helpers nobody reaps) count as gone; a live one gets SIGKILL after 10 s.
  for p in $pids; do
    local tries=0
    while [[ -r /proc/$p/stat && $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) != Z ]]; do
      ((++tries == 200)) && kill -9 "$p" 2>/dev/null
      sleep 0.05
    done
  done
  echo "$name $times $rss $pss $n $anon"
}

results=$scratch/results
: >"$results"
printf '%-9s %9s %9s %9s %9s %6s %9s\n' run window_ms paint_ms rss_MB pss_MB procs anon_MB
for ((i = 1; i <= pairs; i++)); do
  for app in bare loopdesk; do
    if [[ $app == bare ]]; then
      line=$(measure bare barewails "$scratch/barewails")
    else
      line=$(measure loopdesk Loopdesk "$scratch/loopdesk")
    fi
    echo "$line" >>"$results"
    awk '{printf "%-9s %9d %9d %9.1f %9.1f %6d %9.1f\n", $1, $2, $3, $4/1024, $5/1024, $6, $7/1024}' <<<"$line"
  done
done

# Ratios of the medians, Loopdesk over bare, and of each pair.
awk '
  { k=$1; n[k]++; w[k,n[k]]=$2; p[k,n[k]]=$3; r[k,n[k]]=$4; s[k,n[k]]=$5; a[k,n[k]]=$7 }
  function median(a, k, cnt,   i, j, t, v) {
    for (i = 1; i <= cnt; i++) v[i] = a[k,i]
    for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (v[j] < v[i]) { t=v[i]; v[i]=v[j]; v[j]=t }
    return (cnt % 2) ? v[(cnt+1)/2] : (v[cnt/2] + v[cnt/2+1]) / 2
  }
  END {
    for (i = 1; i <= n["bare"]; i++)
      printf "pair %d: paint x%.2f  rss x%.2f  pss x%.2f\n", i, p["loopdesk",i]/p["bare",i], r["loopdesk",i]/r["bare",i], s["loopdesk",i]/s["bare",i]
    b = n["bare"]; l = n["loopdesk"]
    printf "median: bare paint %d ms, rss %.0f MB, pss %.0f MB; loopdesk paint %d ms, rss %.0f MB, pss %.0f MB\n",
      median(p,"bare",b), median(r,"bare",b)/1024, median(s,"bare",b)/1024, median(p,"loopdesk",l), median(r,"loopdesk",l)/1024, median(s,"loopdesk",l)/1024
    printf "x_vs_bare (medians): paint %.2f  rss %.2f  pss %.2f  (goal <= 1.20)\n",
      median(p,"loopdesk",l)/median(p,"bare",b), median(r,"loopdesk",l)/median(r,"bare",b), median(s,"loopdesk",l)/median(s,"bare",b)
    # Anonymous PSS (heaps, JIT, DOM): the part of PSS no other process on the machine shares,
    # so it does not move with other windows the way file-backed PSS does.
    printf "anonymous pss: bare %.1f MB, loopdesk %.1f MB (x%.2f)\n",
      median(a,"bare",b)/1024, median(a,"loopdesk",l)/1024, median(a,"loopdesk",l)/median(a,"bare",b)
  }' "$results"
