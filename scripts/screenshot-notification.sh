#!/usr/bin/env bash
# Screenshot of a desktop notification from the real Loopdesk window: under Xvfb, on a private
# D-Bus session bus with dunst as the notification server, a call waits for approval while
# another window (xmessage) has the focus. Writes docs/screenshots/ui-notification.png (or $1).
# Needs: make build, build/bin/fakeai, xvfb-run, xdotool, ImageMagick, dunst, xmessage (x11-utils),
# dbus-run-session. With CLICK_OUT=FILE it then clicks the notification and shots the window again.
set -euo pipefail
cd "$(dirname "$0")/.."

inner() {
  dunst >"$home/dunst.log" 2>&1 &
  coproc FAKE { exec build/bin/fakeai; }
  read -r line <&"${FAKE[0]}"
  url=${line#FAKEAI_URL=}
  # The model asks to run a command, a few seconds after the message: time to move the focus away.
  curl -fsS -X POST "${url%/v1}/_fake/enqueue" \
    -d '[{"kind":"text","calls":[{"id":"call_1","name":"run_shell_command","arguments":"{\"command\":\"make test\"}"}],"delay_ms":1500},{"kind":"text","text":"Done."}]' >/dev/null
  LOOPDESK_DB="$home/loopdesk.db" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" OPENAI_BASE_URL="$url" \
    LOOPDESK_MODEL=fake-model build/bin/loopdesk >"$home/app.log" 2>&1 &
  app=$!
  for _ in $(seq 100); do
    win=$(xdotool search --name '^Loopdesk$' 2>/dev/null | head -n1) && [ -n "$win" ] && break
    sleep 0.2
  done
  [ -n "${win:-}" ] || { echo "the window did not appear"; cat "$home/app.log"; exit 1; }
  sleep 3 # the page loads after the window maps
  xdotool mousemove --window "$win" 700 745 click 1
  xdotool type --delay 20 "Run the tests please"
  xdotool key Return
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
if [[ "${1:-}" == "--inner" ]]; then
  out=$2 home=$3
  inner
  exit 0
fi
out="${1:-docs/screenshots/ui-notification.png}"
mkdir -p "$(dirname "$out")"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- "$0" --inner "$(realpath -m "$out")" "$home"
echo "wrote $out"
