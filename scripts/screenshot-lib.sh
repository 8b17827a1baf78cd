# Sourced by the screenshot scripts (scripts/screenshot*.sh): the real window against the
# scripted fake model server, in a private home, under Xvfb. Each script defines inner (what
# it shows and shoots) and ends with screenshot_main.

# fake_start ARGS...: starts build/bin/fakeai with ARGS; sets url (its /v1 URL) and FAKE_PID.
fake_start() {
  coproc FAKE { exec build/bin/fakeai "$@"; }
  read -r line <&"${FAKE[0]}"
  url=${line#FAKEAI_URL=}
}

# fake_enqueue JSON: the replies the fake model gives, in order.
fake_enqueue() {
  curl -fsS -X POST "${url%/v1}/_fake/enqueue" -d "$1" >/dev/null
}

# window_start [NAME=VALUE...]: starts the window on the fake model with its database and
# config in $home (and the given environment too); sets app (its pid) and win (its X id) once
# it maps, or fails with its log.
window_start() {
  env LOOPDESK_DB="$home/loopdesk.db" XDG_CONFIG_HOME="$home/config" "$@" OPENAI_BASE_URL="$url" \
    LOOPDESK_MODEL=fake-model build/bin/loopdesk >"$home/app.log" 2>&1 &
  app=$!
  for _ in $(seq 100); do
    win=$(xdotool search --name '^Loopdesk$' 2>/dev/null | head -n1) && [ -n "$win" ] && break
    sleep 0.2
  done
  [ -n "${win:-}" ] || { echo "the window did not appear"; cat "$home/app.log"; exit 1; }
}

# window_send TEXT: types TEXT in the message box and sends it.
window_send() {
  sleep 3 # the page loads after the window maps
  # No window manager under Xvfb: focus the message box by clicking it.
  xdotool mousemove --window "$win" 700 745 click 1
  xdotool type --delay 20 "$1"
  xdotool key Return
}

# screenshot_main DEFAULT_OUT ARGS...: run with --inner (by itself, under Xvfb), runs inner with
# out and home set; else runs the script again under Xvfb, inside the command in the array wrap
# when the script set one, with a private home, writing the path ARGS name or DEFAULT_OUT.
screenshot_main() {
  local default=$1
  shift
  if [[ "${1:-}" == "--inner" ]]; then
    out=$2 home=$3
    inner
    exit 0
  fi
  out="${1:-$default}"
  mkdir -p "$(dirname "$out")"
  home=$(mktemp -d)
  trap 'rm -rf "$home"' EXIT
  xvfb-run -a -s "-screen 0 1280x800x24" ${wrap[@]+"${wrap[@]}"} "$0" --inner "$(realpath -m "$out")" "$home"
  echo "wrote $out"
}
