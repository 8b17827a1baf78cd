#!/usr/bin/env bash
# Builds build/bin/loopdesk_<version>_amd64.deb from build/bin/loopdesk and loopdesk-window (which
# `make package` builds first with the same version stamped in): icons in the
# hicolor sizes from build/appicon.png, the gzipped man page, and nfpm.
#   scripts/package.sh NFPM VERSION
set -euo pipefail
cd "$(dirname "$0")/.."
nfpm=$1 version=$2
root=build/bin/pkgroot
rm -rf "$root"
mkdir -p "$root/icons"
for size in 16 24 32 48 64 128 256 512; do
  dir="$root/icons/${size}x${size}/apps"
  mkdir -p "$dir"
  convert build/appicon.png -resize "${size}x${size}" -depth 8 -strip "PNG32:$dir/loopdesk.png"
done
gzip -9n <build/package/loopdesk.1 >"$root/loopdesk.1.gz"
chmod -R u=rwX,go=rX "$root" # the tree keeps these modes in the package
out="build/bin/loopdesk_${version}_amd64.deb"
rm -f "$out"
LOOPDESK_VERSION=$version "$nfpm" package --config build/package/nfpm.yaml --packager deb --target "$out" >/dev/null
echo "$out"
