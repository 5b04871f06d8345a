#!/bin/bash
# Writes <out>/upper: the code-interpreter layer of the guest image (issue 35), the files
# that apt's install of packages-code.txt adds to or changes in the base tree (build-base.sh),
# as an overlayfs upper directory. The base tree is not touched: apt runs in a chroot of an
# overlay over it, so the layer reuses the base's work (its installed packages, its dpkg
# configuration with the slimming filters and the stand-in package, its apt lists) and
# installs only what is new. build-rootfs.sh stacks the layer over the base.
# Usage: build-layer.sh <out-dir> <base-tree> <deb-cache-dir> <package-list>
#   <deb-cache-dir>: apt's archive of downloaded .debs (build-base.sh's), bound into the
#   chroot: what the base downloaded is not fetched again, what is new is kept there.
source "$(dirname "$0")/common.sh"
out=${1:?usage: build-layer.sh <out-dir> <base-tree> <deb-cache-dir> <package-list>}
base=${2:?usage}
debs=${3:?usage}
list=${4:?usage}
need chroot unshare
[ "$(id -u)" = 0 ] || die "apt in the chroot needs root"
[ -x "$base/bin/bash" ] || die "no base tree at $base"
# In a mount namespace of its own: the overlay and the chroot's mounts go away with the
# script, also when the build is killed (recipe-group.ts).
if [ -z "${BOX_LAYER_NS:-}" ]; then
  BOX_LAYER_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
pkgs=$(grep -vE '^\s*(#|$)' "$list" | paste -sd' ' -)
mkdir -p "$out/upper" "$debs/partial"
work=$(mktemp -d "$out/.layer-work.XXXXXX")
trap 'umount -R "$work/tree" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work"/{tree,ovl}
tree=$work/tree
mount -t overlay overlay -o "lowerdir=$base,upperdir=$out/upper,workdir=$work/ovl" "$tree" || die "overlayfs is needed for the image's code layer"
mount -t proc proc "$tree/proc"
mount --rbind /dev "$tree/dev"
mount --bind "$debs" "$tree/var/cache/apt/archives"
cp /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true # only for packages not in the .deb cache

progress 5 "apt-get install ($(wc -w <<< "$pkgs") packages over the base)"
t0=${EPOCHREALTIME/./}
apt_install() {
  chroot "$tree" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
    apt-get install -y -q -o APT::Install-Recommends=false -o Dpkg::Use-Pty=0 $pkgs 2>&1 \
    | {
      n=0 u=0 c=0 # packages to install, unpacked, set up: the percent follows them (setting up,
      # byte-compiling the Python packages, is ~70% of the time; unpacking ~20%)
      while IFS= read -r line; do
        t=${EPOCHREALTIME/./} && echo "[+$(((t - t0) / 100000))] $line" # tenths of a second since the start
        case "$line" in
          *" newly installed"*) n=$(awk '{print $3}' <<< "$line") ;;
          "Unpacking "*) u=$((u + 1)) && echo "@@progress $((5 + 20 * u / (n > u ? n : u))) unpacking: ${line#Unpacking }" ;;
          "Setting up "*) c=$((c + 1)) && echo "@@progress $((25 + 70 * c / (n > c ? n : c))) configuring: ${line#Setting up }" ;;
          "Processing triggers"*) echo "@@progress 96 ${line}" ;;
        esac
      done
    }
  return "${PIPESTATUS[0]}"
}
# The base keeps apt's lists from its build (build-base.sh); when they went stale (the
# mirror moved on since), fetch them again.
if ! apt_install; then
  progress 8 "apt-get update (the base's package lists are stale)"
  chroot "$tree" apt-get update -q
  apt_install || die "apt-get install failed"
fi
# Test suites inside Python packages, with their byte-code (as build-base.sh does).
find "$tree/usr/lib/python3/dist-packages" -mindepth 2 -type d \( -name tests -o -path '*/tornado/test' \) -prune -exec rm -rf {} +
find "$tree/usr/lib/x86_64-linux-gnu" -maxdepth 1 -name '*.a' -delete
dpkg-query --admindir="$tree/var/lib/dpkg" -W -f='${Installed-Size}\t${Package}\t${Version}\n' | sort -rn > "$out/packages.lst"
umount -R "$tree"
# What apt leaves that the image drops anyway (build-rootfs.sh), and the host's resolver.
rm -rf "$out/upper/var/cache/apt/archives" "$out/upper"/var/cache/apt/*.bin "$out/upper"/var/log/* "$out/upper/tmp" "$out/upper/etc/resolv.conf"
rm -f "$debs"/lock
rm -rf "$debs/partial"
progress 100 "code layer ready in ${SECONDS}s ($(du -sh "$out/upper" | cut -f1) of files)"
