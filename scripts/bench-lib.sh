# Sourced by the window benches that drive the product's page (scripts/bench-memory.sh,
# scripts/bench-many.sh).

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
