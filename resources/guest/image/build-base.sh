#!/bin/bash
# Writes <out>/tree: the installed root tree of the guest image's base, Debian bookworm
# minbase plus packages.txt (the code interpreter's stack is a layer over it: build-layer.sh), slimmed (slim-dpkg.cfg, slim.control), before any configuration of
# ours (build-rootfs.sh does that on a copy). Cached by the package list: a recipe change
# that does not touch packages.txt, slim.control, slim-dpkg.cfg or this script reuses it.
# mmdebstrap: apt resolves and downloads everything at once, one dpkg run installs it
# (debootstrap took 47 s for minbase alone, then apt-get 46 s for the rest).
# apt's package lists stay in the tree (the layer's apt-get install uses them; build-rootfs.sh
# leaves them out of the image).
# Usage: build-base.sh <out-dir> <deb-cache-dir>
#   <deb-cache-dir>: apt's archive of downloaded .debs, kept across builds (synced in
#   before, out after), so a package list change downloads only what is new.
source "$(dirname "$0")/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-base.sh <out-dir> <deb-cache-dir>}
debs=${2:?usage: build-base.sh <out-dir> <deb-cache-dir>}
need mmdebstrap dpkg-deb unshare
[ "$(id -u)" = 0 ] || die "mmdebstrap needs root"
mirror=$(debian_mirror)
include=$(grep -vE '^\s*(#|$)' "$here/packages.txt" | paste -sd, -)

mkdir -p "$out" "$debs"
# The stand-in package, built here (no download); apt inside the chroot installs it from
# the same path, under /tmp, which mmdebstrap empties at the end.
find /tmp -maxdepth 1 -name 'box-guest-slim.*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true # of killed builds
stub=$(mktemp -d /tmp/box-guest-slim.XXXXXX)
trap 'rm -rf "$stub"' EXIT
mkdir -p "$stub/pkg/DEBIAN"
cp "$here/slim.control" "$stub/pkg/DEBIAN/control"
dpkg-deb --root-owner-group --build "$stub/pkg" "$stub/box-guest-slim.deb" >/dev/null

progress 2 "mmdebstrap bookworm minbase + packages.txt"
t0=${EPOCHREALTIME/./}
# A mount namespace of its own: the /proc, /sys and /dev mounts mmdebstrap makes in the
# tree go away with it, even when the build is killed (recipe-group.ts).
unshare --mount --propagation private \
  mmdebstrap --mode=root --variant=minbase \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt=force-unsafe-io \
  --include="$include" --include="$stub/box-guest-slim.deb" \
  --skip=essential/unlink --skip=cleanup/apt/lists \
  --setup-hook="mkdir -p \"\$1$stub\" \"\$1/var/cache/apt/archives\" && cp '$stub/box-guest-slim.deb' \"\$1$stub/\"" \
  --setup-hook="sync-in '$debs' /var/cache/apt/archives/" \
  --setup-hook="mkdir -p \"\$1/etc/dpkg/dpkg.cfg.d\" && cp '$here/slim-dpkg.cfg' \"\$1/etc/dpkg/dpkg.cfg.d/box-slim\"" \
  --customize-hook="sync-out /var/cache/apt/archives '$debs'" \
  bookworm "$out/tree" "$mirror" 2>&1 \
  | while IFS= read -r line; do
      t=${EPOCHREALTIME/./} && echo "[+$(((t - t0) / 100000))] $line" # tenths of a second since the start
      case "$line" in
        "I: running apt-get update"*) echo "@@progress 5 apt-get update" ;;
        "I: downloading packages"*) echo "@@progress 10 downloading packages" ;;
        "I: extracting archives"*) echo "@@progress 20 extracting" ;;
        "I: installing essential packages"*) echo "@@progress 30 installing essential packages" ;;
        "I: installing remaining packages"*) echo "@@progress 50 installing packages" ;;
        "Setting up "*) echo "@@progress 60 configuring: ${line#Setting up }" ;;
        "I: running --customize-hook"*) echo "@@progress 90 saving downloaded packages" ;;
        "I: cleaning"*) echo "@@progress 95 cleaning up" ;;
      esac
    done
[ -x "$out/tree/bin/bash" ] || die "mmdebstrap failed"
# The filters are in the tree's dpkg configuration from the start, so dpkg honours them
# (not as --dpkgopt: then mmdebstrap pipes every essential package through its Python
# tar filter, 47 s of a 4-minute build under load). What the essential packages' first
# extraction (tar, before dpkg) left of what they filter goes here.
(cd "$out/tree" && find usr/share/doc usr/share/man usr/share/info usr/share/locale usr/share/lintian \
  -mindepth 1 \( -type f -o -type l \) ! -name copyright ! -path usr/share/locale/locale.alias -delete 2>/dev/null || true)
find "$out/tree/usr/share/doc" "$out/tree/usr/share/man" "$out/tree/usr/share/info" "$out/tree/usr/share/locale" \
  -mindepth 1 -depth -type d -empty -delete 2>/dev/null || true
find "$out/tree/usr/lib/x86_64-linux-gnu" -maxdepth 1 -name '*.a' -delete
# Test suites inside Python packages, with their byte-code: ~70 MB (pandas' alone 36 MB).
# Nothing imports them but the packages' own test runners; `testing` modules stay
# (numpy.testing, pandas._testing, matplotlib.testing are imported by other code).
find "$out/tree/usr/lib/python3/dist-packages" -mindepth 2 -type d \( -name tests -o -path '*/tornado/test' \) -prune -exec rm -rf {} +
rm -f "$debs"/lock "$debs"/*.bin
rm -rf "$debs/partial"
# What got in, for a look without mounting anything (image size work: issue 35).
dpkg-query --admindir="$out/tree/var/lib/dpkg" -W -f='${Installed-Size}\t${Package}\t${Version}\n' | sort -rn > "$out/packages.lst"
progress 100 "base tree ready in ${SECONDS}s ($(du -sh "$out/tree" | cut -f1) of files, $(wc -l < "$out/packages.lst") packages)"
