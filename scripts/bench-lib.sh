# Sourced by the window benches that drive the product's page (scripts/bench-memory.sh,
# scripts/bench-many.sh, scripts/bench-history-window.sh).

# bench_window_under_xvfb "$@": the first time, builds the window with the bench tag
# (bench_hook.go: the page driver and the measuring hook) and the fake model, then runs the
# calling script again with its arguments under Xvfb, without a session bus (no notification
# server, no other Loopdesk to hand a launch to); the second time (under Xvfb) it returns.
bench_window_under_xvfb() {
  [[ -n ${BENCH_UNDER_XVFB:-} ]] && return 0
  go build -tags "desktop,production,webkit2_41,sqlite_fts5,bench" -ldflags "-w -s" -o build/bin/loopdesk-bench .
  go build -o build/bin/fakeai ./backend/fakeai/cmd/fakeai
  BENCH_UNDER_XVFB=1 exec env -u DBUS_SESSION_BUS_ADDRESS -u XDG_RUNTIME_DIR \
    xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$@"
}

# bench_fake NAME: a scratch folder ($scratch, removed at exit unless BENCH_KEEP is set) and the
# scripted fake model running from it ($url its /v1, $control its control API; stopped at exit).
bench_fake() {
  scratch=$(mktemp -d)
  fake_pid=
  trap "bench_cleanup $1" EXIT
  build/bin/fakeai -stdin=false >"$scratch/fake.out" 2>&1 &
  fake_pid=$!
  for _ in $(seq 100); do grep -qs FAKEAI_URL "$scratch/fake.out" && break; sleep 0.05; done
  url=$(sed -n 's/^FAKEAI_URL=//p' "$scratch/fake.out")
  [[ -n $url ]] || { cat "$scratch/fake.out" >&2; exit 1; }
  control=${url%/v1}/_fake
}

bench_cleanup() {
  [[ -n $fake_pid ]] && kill "$fake_pid" 2>/dev/null
  if [[ -n ${BENCH_KEEP:-} ]]; then echo "$1: kept $scratch" >&2; else rm -rf "$scratch"; fi
}
