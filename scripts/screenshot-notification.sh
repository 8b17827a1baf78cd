#!/usr/bin/env bash
# Screenshot of a desktop notification from the real Loopdesk window: under Xvfb, on a private
# D-Bus session bus with dunst as the notification server, a call waits for approval while
# another window (xmessage) has the focus. Writes docs/screenshots/ui-notification.png (or $1).
# Needs: make build, build/bin/fakeai, xvfb-run, xdotool, ImageMagick, dunst, xmessage (x11-utils),
# dbus-run-session. With CLICK_OUT=FILE it then clicks the notification and shots the window again.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/screenshot-lib.sh

inner() {
  dunst >"$home/dunst.log" 2>&1 &
  fake_start
  # The model asks to run a command, a few seconds after the message: time to move the focus away.
  fake_enqueue '[{"kind":"text","calls":[{"id":"call_1","name":"run_shell_command","arguments":"{\"command\":\"make test\"}"}],"delay_ms":1500},{"kind":"text","text":"Done."}]'
  window_start XDG_DATA_HOME="$home/data"
  window_send "Run the tests please"
  # Another application takes the focus (no window manager: focus it directly).
  xmessage -geometry 520x90+380+560 -name other "Another application has the focus now." &
  msg=$!
  for _ in $(seq 50); do
    other=$(xdotool search --name '^other$|xmessage' 2>/dev/null | head -n1) && [ -n "$other" ] && break
    sleep 0.2
  done
  xdotool mousemove 600 600 windowfocus "$other" || true
  for _ in $(seq 100); do
    grep -q "Approval needed" "$home/dunst.log" 2>/dev/null && break
    dbus-send --session --print-reply --dest=org.freedesktop.Notifications /org/freedesktop/Notifications \
      org.dunstproject.cmd0.NotificationListHistory >/dev/null 2>&1 || true
    [ "$(dunstctl count displayed 2>/dev/null || echo 0)" -gt 0 ] && break
    sleep 0.2
  done
  sleep 1
  import -window root "$out"
  if [[ -n "${CLICK_OUT:-}" ]]; then
    # Click it (dunst's default action): the window comes forward on the card.
    dunstctl action 0 || echo "dunstctl action failed" >&2
    sleep 2
    import -window root "$CLICK_OUT"
  fi
  kill "$app" "$msg" 2>/dev/null || true
  kill "$FAKE_PID" 2>/dev/null || true
}
wrap=(dbus-run-session --) # its own session bus, for dunst
screenshot_main docs/screenshots/ui-notification.png "$@"
