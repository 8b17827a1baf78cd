#!/usr/bin/env bash
# Takes a screenshot of the real Loopdesk window under Xvfb, showing a reply
# streamed from the fake model server. Writes docs/screenshots/window.png
# (or the path given as $1). Needs: make build, build/bin/fakeai, xvfb-run,
# xdotool and ImageMagick's import (scripts/bootstrap.sh test installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

inner() {
  coproc FAKE { exec build/bin/fakeai -delay 60ms; }
  read -r line <&"${FAKE[0]}"
  url=${line#FAKEAI_URL=}
  curl -fsS -X POST "${url%/v1}/_fake/enqueue" -d '[{"kind":"text","text":"Here is what I found:\n\n- **main.go** starts the window or the CLI\n- `backend/store` keeps every row in SQLite\n\nEach reply streams in token by token.","delay_ms":40}]' >/dev/null
  LOOPDESK_DB="$home/loopdesk.db" XDG_CONFIG_HOME="$home/config" OPENAI_BASE_URL="$url" LOOPDESK_MODEL=fake-model \
    build/bin/loopdesk >"$home/app.log" 2>&1 &
  app=$!
  for _ in $(seq 100); do
    win=$(xdotool search --name '^Loopdesk$' 2>/dev/null | head -n1) && [ -n "$win" ] && break
    sleep 0.2
  done
  [ -n "${win:-}" ] || { echo "the window did not appear"; cat "$home/app.log"; exit 1; }
  # The page needs a moment after the window maps; poll the message box by typing once it takes focus.
  sleep 3
  # No window manager under Xvfb: focus the message box by clicking it.
  xdotool mousemove --window "$win" 700 745 click 1
  xdotool type --delay 20 "What does this project contain?"
  xdotool key Return
  for _ in $(seq 100); do
    curl -fsS "${url%/v1}/_fake/requests" | grep -q chat/completions && break
    sleep 0.2
  done
  sleep 3
  import -window root "$out"
  kill "$app" 2>/dev/null || true
  kill "$FAKE_PID" 2>/dev/null || true
}
if [[ "${1:-}" == "--inner" ]]; then
  out=$2 home=$3
  inner
  exit 0
fi
out="${1:-docs/screenshots/window.png}"
mkdir -p "$(dirname "$out")"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
xvfb-run -a -s "-screen 0 1280x800x24" "$0" --inner "$out" "$home"
echo "wrote $out"
