#!/usr/bin/env bash
# Installs what Loopdesk needs to build, run and test on Debian 12+ / Ubuntu 24.04+,
# skipping whatever is already there. Uses sudo only when not root.
#   scripts/bootstrap.sh          system packages for building and running
#   scripts/bootstrap.sh package  plus what `make package` needs (ImageMagick for the icons)
#   scripts/bootstrap.sh test     plus the package tools and what the tests need: the end-to-end
#                                 tests, desktop-file-validate, a D-Bus session bus, the bench
set -euo pipefail

# bubblewrap: the sandbox shell commands run in (docs/sandbox.md); the app runs
# without it only when told to, and its tests need it.
want=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev bubblewrap)
case "${1:-}" in
  package) want+=(imagemagick) ;;
  test) want+=(imagemagick xvfb xauth x11-utils xdotool chromium fonts-dejavu-core
               desktop-file-utils dbus-daemon binutils sqlite3) ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "bootstrap: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v go >/dev/null || { echo "bootstrap: Go 1.26 is required (https://go.dev/dl/); not found on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "bootstrap: Node.js 20+ with npm is required; not found on PATH" >&2; exit 1; }
