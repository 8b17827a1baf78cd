#!/usr/bin/env bash
# Checks the .deb as a user gets it (make test): it installs with apt (which
# pulls its Depends), /usr/bin/loopdesk runs and execs /usr/lib/loopdesk/loopdesk-window for
# the window, the .desktop file validates, the icons and man page are where the desktop
# looks, every library the binaries link comes from a package it depends on, there are no
# conffiles, and `dpkg -r` removes every file it installed while the user's data stays.
#   scripts/test-package.sh build/bin/loopdesk_<version>_amd64.deb
# Installs and removes the package on this machine: root, or sudo when not root.
set -euo pipefail
deb=$(realpath "$1")
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "test-package: need root or sudo to install $deb" >&2; exit 1; }
  SUDO="sudo"
fi
trap 'echo "test-package: FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR
fail() { echo "test-package: FAIL: $*" >&2; exit 1; }
ok() { echo "test-package: ok: $*"; }

version=$(dpkg-deb -f "$deb" Version)
depends=$(dpkg-deb -f "$deb" Depends)
mapfile -t listed < <(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | grep -v '^$')
# Directories that exist before install must survive removal; the others must go.
declare -A existed=()
for p in "${listed[@]}"; do [[ -d $p ]] && existed[$p]=1; done
installed_now() { [[ $(dpkg-query -W -f='${Status}' loopdesk 2>/dev/null || true) == *"ok installed" ]]; }
if installed_now; then
  echo "test-package: note: loopdesk was installed here; this test replaces it and removes it at the end"
fi

log=$(mktemp)
home=$(mktemp -d)
cleanup() {
  # A failed check must not leave the package behind.
  if installed_now; then $SUDO dpkg -r loopdesk >/dev/null; fi
  rm -rf "$home" "$log"
}
trap cleanup EXIT
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --allow-downgrades --no-install-recommends "$deb" >"$log" 2>&1 ||
  { cat "$log" >&2; fail "apt-get install $deb"; }
ok "apt-get install $deb"

out=$(/usr/bin/loopdesk --version)
[[ $out == "loopdesk $version (commit "*")" ]] || fail "loopdesk --version printed '$out', want version $version"
ok "$out"
[[ $(/usr/bin/loopdesk --help) == *"loopdesk run"* ]] || fail "loopdesk --help"
code=0
err=$(/usr/bin/loopdesk --no-such-flag 2>&1 >/dev/null) || code=$?
[[ $code == 2 && $err == *"usage: loopdesk"* ]] || fail "an unknown flag exited $code: $err"
code=0
err=$(env -u DISPLAY -u WAYLAND_DISPLAY /usr/bin/loopdesk 2>&1) || code=$?
[[ $code == 1 && $(wc -l <<<"$err") == 1 && $err == *"no display"* ]] || fail "no display exited $code: $err"
ok "usage error exits 2; no display exits 1 in one line"
# The window program: where loopdesk looks for it, owned by the package, and what a window
# launch becomes (exec, the same process): a display that is not there fails in GTK's words.
win=/usr/lib/loopdesk/loopdesk-window
[[ -x $win ]] || fail "no $win"
[[ $(dpkg -S "$win" 2>/dev/null | cut -d: -f1) == loopdesk ]] || fail "dpkg -S $win does not name loopdesk"
[[ $($win --version) == "$out" ]] || fail "$win --version is not '$out'"
code=0
err=$(DISPLAY=:87 /usr/bin/loopdesk 2>&1) || code=$?
[[ $code == 1 && $err == *"GTK could not open the display :87"* ]] || fail "a window launch on a missing display exited $code: $err"
if objdump -p /usr/bin/loopdesk | grep -E 'NEEDED +lib(gtk|gdk|webkit2gtk|javascriptcoregtk)'; then
  fail "/usr/bin/loopdesk links the window's libraries"
fi
ok "$win (dpkg -S: loopdesk) opens the window for /usr/bin/loopdesk, which links no GTK or WebKit"

desktop-file-validate /usr/share/applications/loopdesk.desktop || fail "desktop-file-validate"
grep -q '^Exec=loopdesk' /usr/share/applications/loopdesk.desktop || fail ".desktop Exec"
ok "desktop-file-validate /usr/share/applications/loopdesk.desktop"
for s in 16 32 48 64 128 256 512; do
  f=/usr/share/icons/hicolor/${s}x${s}/apps/loopdesk.png
  [[ $(identify -format '%wx%h' "$f") == "${s}x${s}" ]] || fail "icon $f is not ${s}x${s}"
done
gzip -t /usr/share/man/man1/loopdesk.1.gz || fail "man page"
zcat /usr/share/man/man1/loopdesk.1.gz | grep -q '^\.TH LOOPDESK 1' || fail "man page header"
ok "icons in hicolor sizes, man page"
# The sandbox's Landlock helper sits beside the app, static, and is found by the installed app.
[[ -x /usr/bin/loopdesk-sandbox-exec ]] || fail "no /usr/bin/loopdesk-sandbox-exec"
objdump -p /usr/bin/loopdesk-sandbox-exec | grep -q NEEDED && fail "loopdesk-sandbox-exec is not static"
[[ $(realpath /usr/lib/loopdesk/loopdesk-sandbox-exec) == $(realpath /usr/bin/loopdesk-sandbox-exec) ]] ||
  fail "/usr/lib/loopdesk/loopdesk-sandbox-exec does not lead to /usr/bin/loopdesk-sandbox-exec"
ok "/usr/bin/loopdesk-sandbox-exec (static), and beside the window program"

[[ -z $(dpkg-query -W -f='${Conffiles}' loopdesk) ]] || fail "the package has conffiles"
# Every library the binaries link must come from a package in Depends.
for lib in $(objdump -p /usr/bin/loopdesk "$win" | awk '/NEEDED/ {print $2}' | sort -u); do
  path=$(ldconfig -p | awk -v l="$lib" '!found && $1 == l && /x86-64/ {print $NF; found = 1}')
  [[ -n $path ]] || fail "library $lib not found"
  # With merged /usr, dpkg knows a library under one of its two paths.
  pkg=$(dpkg -S "$(realpath "$path")" 2>/dev/null | head -1 | cut -d: -f1 || true)
  [[ -n $pkg ]] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1 || true)
  [[ -n $pkg ]] || fail "no package owns $path"
  grep -Eq "(^|, )${pkg%t64}( |,|$)" <<<"$depends" || fail "$lib comes from $pkg, which Depends ($depends) lacks"
done
ok "Depends covers every linked library; no conffiles"

# The user's data: a database the installed binary created, and a key file.
HOME=$home XDG_DATA_HOME=$home/data XDG_CONFIG_HOME=$home/config /usr/bin/loopdesk sessions list >/dev/null
[[ -f $home/data/loopdesk/loopdesk.db ]] || fail "sessions list created no database"
mkdir -p "$home/config/loopdesk" && echo sk-test >"$home/config/loopdesk/api_key"

installed=$(dpkg -L loopdesk)
$SUDO dpkg -r loopdesk >/dev/null
[[ $(dpkg-query -W -f='${db:Status-Status}' loopdesk 2>/dev/null || echo not-installed) == not-installed ]] ||
  fail "dpkg -r left the package in state $(dpkg-query -W -f='${db:Status-Status}' loopdesk)"
while read -r p; do
  [[ -z $p || $p == /. ]] && continue
  if [[ -n ${existed[$p]:-} ]]; then continue; fi
  [[ ! -e $p ]] || fail "dpkg -r left $p"
done <<<"$installed"
[[ -f $home/data/loopdesk/loopdesk.db && -f $home/config/loopdesk/api_key ]] || fail "dpkg -r touched the user's data"
ok "dpkg -r removed every file it installed ($(wc -l <<<"$installed") paths); the user's data stays"
