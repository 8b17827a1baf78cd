#!/usr/bin/env bash
# Prints "VERSION COMMIT" for this checkout: the version the binary reports
# (loopdesk --version), the .deb carries and its file name holds.
#   tag v1.2.3 at HEAD      -> 1.2.3
#   4 commits after v1.2.3  -> 1.2.3+4.gabc1234
#   no tag                  -> 0.0.0+git57.gabc1234  (57 commits)
#   uncommitted changes     -> ... with .dirty appended
#   no git at all           -> 0.0.0+unknown unknown
# Debian versions must start with a digit and sort upwards; both hold here.
# CI builds with -buildvcs=false, so the Makefile passes these with -ldflags -X.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  echo "0.0.0+unknown unknown"
  exit 0
fi
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty=".dirty"
if desc=$(git describe --tags --match 'v[0-9]*' --long 2>/dev/null); then
  # v1.2.3-4-gabc1234 (tag, commits since, hash)
  tag=${desc%-*-g*}; rest=${desc#"$tag"-}; n=${rest%%-*}
  version=${tag#v}
  ((n > 0)) && version="$version+$n.g${commit:0:7}"
else
  version="0.0.0+git$(git rev-list --count HEAD).g${commit:0:7}"
fi
echo "$version$dirty $commit"
