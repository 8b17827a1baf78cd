#!/usr/bin/env bash
# How much of each window binary is resident once its window idles, started cold: each
# binary is copied (written with write(), as an installer does), its page cache dropped
# (posix_fadvise DONTNEED on that one file, nothing else), then run on its own Xvfb with a
# fresh home for BENCH_IDLE_SECONDS (10). Prints, per binary, its mapped size, the part
# resident in the app's process (/proc/PID/smaps) and the process's RSS and PSS.
#   scripts/bench-binary.sh BIN...      e.g. build/bin/loopdesk-window build/bin/barewails
# docs/benchmarks.md ("The binary") explains why the figure is the binary's size more than
# what the app touches: this kernel maps a file's page cache in whole large folios.
#
#   scripts/bench-binary.sh --start BIN...   e.g. build/bin/loopdesk build/bin/loopdesk-window
# instead times `BIN --version` and `BIN --help` against /bin/true, started the same way in
# the same run: three runs, each the median of 50 starts of every command, interleaved so a
# busy moment of the machine falls on all of them (goal: <= 50 ms; docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --start ]]; then
  shift
  home=$(mktemp -d)
  trap 'rm -rf "$home"' EXIT
  HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data exec python3 - "$@" <<'PY'
import statistics, subprocess, sys, time
cmds = [["/bin/true"]] + [[b, a] for b in sys.argv[1:] for a in ("--version", "--help")]
def start(cmd):
    t0 = time.perf_counter_ns()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter_ns() - t0) / 1e6
for cmd in cmds:
    start(cmd)  # once untimed: the page cache holds every binary as it will in the runs
for run in range(1, 4):
    times = {" ".join(c): [] for c in cmds}
    for _ in range(50):
        for c in cmds:
            times[" ".join(c)].append(start(c))
    base = statistics.median(times["/bin/true"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"run {run} {name:<44} median {m:7.2f} ms  (/bin/true + {m - base:6.2f} ms)")
PY
fi
idle=${BENCH_IDLE_SECONDS:-10}
if [[ -z ${BENCH_WINDOW_INNER:-} ]]; then
  BENCH_WINDOW_INNER=1 exec env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR \
    xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$@"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for bin in "$@"; do
  copy=$scratch/$(basename "$bin")
  cp "$bin" "$copy"
  sync "$copy"
  python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$copy"
  home=$scratch/home
  rm -rf "$home" && mkdir -p "$home"
  HOME=$home XDG_DATA_HOME=$home/data XDG_CONFIG_HOME=$home/config LOOPDESK_DB=$home/loopdesk.db \
    "$copy" >"$scratch/log" 2>&1 &
  pid=$!
  sleep "$idle" # the measurement: memory once the window has been idle this long
  awk -v bin="$copy" -v name="$(basename "$bin")" '
    /^[0-9a-f]+-[0-9a-f]+ / { cur = ($6 == bin) }
    cur && /^Size:/ { s += $2 }
    cur && /^Rss:/ { r += $2 }
    END { printf "%-12s binary mapped %6.1f MB, resident %6.1f MB; ", name, s / 1024, r / 1024 }' "/proc/$pid/smaps"
  awk '/^Rss:/ { r = $2 } /^Pss:/ { p = $2 } END { printf "app process rss %.1f MB, pss %.1f MB\n", r / 1024, p / 1024 }' "/proc/$pid/smaps_rollup"
  kill $(pgrep -P "$pid") "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
