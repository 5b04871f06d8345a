#!/bin/bash
# Writes <out>/rootfs.raw: an ext4 image (no loop mounts: mke2fs -d) of the base tree
# (build-base.sh: bookworm minbase + packages.txt), with the layers given stacked over it
# (build-layer.sh: the code interpreter's), and the image's own configuration.
# The image has no init: the agent from the initramfs runs as PID 1, so no service
# (sshd included) starts by itself. Runs in seconds: what takes long is in the base.
# Usage: build-rootfs.sh <out-dir> <base-tree> [<layer-upper-dir>...]   env: BOX_ROOTFS_SIZE (default 2G)
source "$(dirname "$0")/common.sh"
out=${1:?usage: build-rootfs.sh <out-dir> <base-tree>}
base=${2:?usage: build-rootfs.sh <out-dir> <base-tree> [<layer-upper-dir>...]}
layers=("${@:3}")
need mke2fs chroot
[ "$(id -u)" = 0 ] || die "the image tree is root's: run as root"
[ -x "$base/bin/bash" ] || die "no base tree at $base"
size=${BOX_ROOTFS_SIZE:-2G}

# In a mount namespace of its own, so that the overlay below goes away with the script.
if [ -z "${BOX_ROOTFS_NS:-}" ] && command -v unshare >/dev/null; then
  BOX_ROOTFS_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
mkdir -p "$out"
work=$(mktemp -d "$out/.rootfs-work.XXXXXX")
trap 'umount "$work/tree" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work"/{tree,upper,ovl}
# The base tree stays as it is (it is the cache): its configured view is an overlay, or a
# copy where overlayfs cannot be mounted (17 s for the copy and 7 s to remove it, loaded).
tree=$work/tree
lower=$base
for l in "${layers[@]}"; do
  [ -d "$l" ] || die "no layer at $l"
  lower=$l:$lower # the last layer given is the top one
done
if [ -n "${BOX_ROOTFS_NS:-}" ] && mount -t overlay overlay -o "lowerdir=$lower,upperdir=$work/upper,workdir=$work/ovl" "$tree" 2>/dev/null; then
  progress 10 "base tree overlaid (${#layers[@]} layers over it)"
else
  progress 10 "copying the base tree"
  cp -a --reflink=auto "$base/." "$tree/"
  # a layer's whiteouts (a file it removed) would be copied as devices: the layers add files
  for l in "${layers[@]}"; do cp -a --reflink=auto "$l/." "$tree/"; done
  find "$tree" -type c -perm 0000 -delete 2>/dev/null || true
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
# Name lookups in a box answer at once. A box has no DNS: its network reaches only the egress
# proxy (restrict=on), which resolves names on the host; a query to slirp's 10.0.2.3 waited 2 x 5 s
# for nothing, so every lookup of a name not in /etc/hosts took 10 s (sudo's and Python's
# http.server's of the box's own name among them). The box's name (its own per clone) comes from
# glibc's myhostname module; any other name is refused at once by 127.0.0.1 (ECONNREFUSED: no
# DNS server listens in the box unless the user starts one).
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$tree/etc/hosts"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' > "$tree/etc/resolv.conf"
sed -i -E 's/^hosts:.*/hosts:          files myhostname dns/' "$tree/etc/nsswitch.conf"
grep -q '^hosts: *files myhostname dns$' "$tree/etc/nsswitch.conf" || die "/etc/nsswitch.conf: no hosts line"
[ -e "$tree/lib/x86_64-linux-gnu/libnss_myhostname.so.2" ] || die "libnss-myhostname is not installed"
printf '/dev/vda / ext4 rw,noatime 0 1\n' > "$tree/etc/fstab"
# Host keys would be shared by every box: the SSH feature generates them (ssh-keygen -A).
rm -f "$tree"/etc/ssh/ssh_host_*
rm -f "$tree/etc/machine-id" "$tree/var/lib/dbus/machine-id"
: > "$tree/etc/machine-id"
mkdir -p "$tree/.box"
# mmdebstrap's build-time settings (no recommends, its dpkg filters, unsafe I/O): a box's
# apt and dpkg keep Debian's defaults, with the image's filters (/etc/dpkg/dpkg.cfg.d/box-slim).
rm -f "$tree/etc/apt/apt.conf.d/99mmdebstrap" "$tree/etc/dpkg/dpkg.cfg.d/99mmdebstrap"
rm -rf "$tree"/var/cache/apt/archives/*.deb "$tree"/var/cache/apt/*.bin "$tree"/var/lib/apt/lists/* \
  "$tree"/var/log/*.log "$tree"/var/log/apt/* "$tree"/tmp/*
rm -f "$tree/etc/resolv.conf.bak"

# E2B's conventions (issue 33): the account `user` (uid 1000, home /home/user, bash),
# passwordless sudo; `python` is python-is-python3 and git is installed (packages.txt).
chroot "$tree" useradd --create-home --home-dir /home/user --shell /bin/bash --uid 1000 --user-group user
echo 'user ALL=(ALL:ALL) NOPASSWD: ALL' > "$tree/etc/sudoers.d/user"
chmod 0440 "$tree/etc/sudoers.d/user"
# Every check that sudo can run, in the tree: the file parses, the binary is setuid root.
chroot "$tree" visudo -cq || die "sudoers does not parse"
[ -u "$tree/usr/bin/sudo" ] || die "sudo is not setuid"

progress 90 "mke2fs ($size, $(du -sh "$tree" | cut -f1) of files)"
rm -f "$out/rootfs.raw.tmp"
mke2fs -q -F -t ext4 -L boxroot -m 0 -E root_owner=0:0 -d "$tree" "$out/rootfs.raw.tmp" "$size"
mv "$out/rootfs.raw.tmp" "$out/rootfs.raw"
progress 100 "rootfs ready"
