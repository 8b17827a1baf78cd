#!/usr/bin/env bash
# Takes a screenshot of the real Loopdesk window under Xvfb, showing a reply
# streamed from the fake model server. Writes docs/screenshots/window.png
# (or the path given as $1). Needs: make build, build/bin/fakeai, xvfb-run,
# xdotool and ImageMagick's import (scripts/bootstrap.sh test installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/screenshot-lib.sh

inner() {
  fake_start -delay 60ms
  fake_enqueue '[{"kind":"text","text":"Here is what I found:\n\n- **main.go** starts the window or the CLI\n- `backend/store` keeps every row in SQLite\n\nEach reply streams in token by token.","delay_ms":40}]'
  window_start
  window_send "What does this project contain?"
  for _ in $(seq 100); do
    curl -fsS "${url%/v1}/_fake/requests" | grep -q chat/completions && break
    sleep 0.2
  done
  sleep 3
  import -window root "$out"
  kill "$app" 2>/dev/null || true
  kill "$FAKE_PID" 2>/dev/null || true
}
screenshot_main docs/screenshots/window.png "$@"
