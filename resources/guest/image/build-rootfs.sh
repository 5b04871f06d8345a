#!/bin/bash
# Writes <out>/rootfs.raw: an ext4 image (no loop mounts: mke2fs -d) of Debian bookworm
# minbase plus packages.txt, fetched through debootstrap from the machine's configured
# mirror. The image has no init: the agent from the initramfs runs as PID 1, so no
# service (sshd included) starts by itself.
# Usage: build-rootfs.sh <out-dir>     env: BOX_ROOTFS_SIZE (default 2G)
source "$(dirname "$0")/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-rootfs.sh <out-dir>}
need debootstrap mke2fs
[ "$(id -u)" = 0 ] || die "debootstrap needs root"
size=${BOX_ROOTFS_SIZE:-2G}
mirror=$(debian_mirror)
include=$(grep -vE '^\s*(#|$)' "$here/packages.txt" | paste -sd, -)

mkdir -p "$out"
tree=$(mktemp -d "$out/.rootfs-tree.XXXXXX")
trap 'rm -rf "$tree"' EXIT
progress 5 "debootstrap bookworm (minbase + $include)"
debootstrap --variant=minbase --include="$include" bookworm "$tree" "$mirror" \
  | while IFS= read -r line; do
      echo "$line"
      case "$line" in
        "I: Retrieving"*) echo "@@progress 10 downloading packages" ;;
        "I: Validating"*) echo "@@progress 20 validating packages" ;;
        "I: Extracting"*) echo "@@progress 30 extracting" ;;
        "I: Installing core"*) echo "@@progress 40 installing core packages" ;;
        "I: Unpacking the base"*) echo "@@progress 50 unpacking" ;;
        "I: Configuring the base"*) echo "@@progress 60 configuring" ;;
        "I: Configuring"*) echo "@@progress 70 configuring: ${line#I: Configuring }" ;;
        "I: Base system installed"*) echo "@@progress 80 base system installed" ;;
      esac
    done
[ -x "$tree/bin/bash" ] || die "debootstrap failed"

extra=$(grep -vE '^\s*(#|$)' "$here/packages-apt.txt" | paste -sd' ' -)
if [ -n "$extra" ]; then
  progress 82 "apt-get install $extra"
  # apt in the new tree, from the same mirror; proc for the packages' scripts
  echo "deb $mirror bookworm main" > "$tree/etc/apt/sources.list"
  cp -L /etc/resolv.conf "$tree/etc/resolv.conf"
  mount -t proc proc "$tree/proc"
  trap 'umount "$tree/proc" 2>/dev/null || true; rm -rf "$tree"' EXIT
  chroot "$tree" apt-get update -q
  DEBIAN_FRONTEND=noninteractive chroot "$tree" apt-get install -y -q --no-install-recommends $extra
  chroot "$tree" apt-get clean
  umount "$tree/proc"
fi

progress 85 "configuring the image"
# No mirror host name may end up in the image: point apt at the public archive.
cat > "$tree/etc/apt/sources.list" <<'SRC'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SRC
echo box > "$tree/etc/hostname"
# A login shell (E2B's SDK runs every command as `bash -l -c`) starts no helper process:
# bash's $EUID instead of `id -u` (other shells still run id), `mesg n` only on a terminal.
# Under TCG each helper is a fresh binary to translate: ~90 ms of every E2B command.
sed -i 's/\$(id -u)/${EUID:-$(id -u)}/' "$tree/etc/profile"
grep -q 'EUID:-' "$tree/etc/profile" || die "/etc/profile: no \$(id -u) to replace"
sed -i 's/^mesg n .*/[ -t 0 ] \&\& mesg n 2>\/dev\/null || true/' "$tree/root/.profile"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tbox\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$tree/etc/hosts"
echo 'nameserver 10.0.2.3' > "$tree/etc/resolv.conf"
printf '/dev/vda / ext4 rw,noatime 0 1\n' > "$tree/etc/fstab"
# Host keys would be shared by every box: the SSH feature generates them (ssh-keygen -A).
rm -f "$tree"/etc/ssh/ssh_host_*
rm -f "$tree/etc/machine-id" "$tree/var/lib/dbus/machine-id"
: > "$tree/etc/machine-id"
mkdir -p "$tree/.box"
rm -rf "$tree"/var/cache/apt/archives/*.deb "$tree"/var/cache/apt/*.bin "$tree"/var/lib/apt/lists/* \
  "$tree"/var/log/*.log "$tree"/var/log/apt/* "$tree"/tmp/* "$tree/debootstrap"
rm -f "$tree/etc/resolv.conf.bak"

progress 90 "mke2fs ($size, $(du -sh "$tree" | cut -f1) of files)"
rm -f "$out/rootfs.raw.tmp"
mke2fs -q -F -t ext4 -L boxroot -m 0 -E root_owner=0:0 -d "$tree" "$out/rootfs.raw.tmp" "$size"
mv "$out/rootfs.raw.tmp" "$out/rootfs.raw"
progress 100 "rootfs ready"
