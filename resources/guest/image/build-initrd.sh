#!/bin/bash
# Writes <out>/initrd.img: busybox-static, the kernel modules the guest needs (with
# their dependencies, signatures stripped), /init, and the guest agent binary.
# Usage: build-initrd.sh <out-dir> <agent-binary>
source "$(dirname "$0")/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-initrd.sh <out-dir> <agent-binary>}
agent=${2:?usage: build-initrd.sh <out-dir> <agent-binary>}
need cpio gzip modprobe
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || die "need a static /bin/busybox (apt-get install busybox-static)"
[ -f "$agent" ] || die "agent binary not found: $agent"
# BOX_INITRD_MODULES="" for a kernel with everything built in (build-kernel-tiny.sh).
MODULES=${BOX_INITRD_MODULES-virtio_mmio virtio_blk virtio_net virtio_console virtio_rng virtio_balloon 9pnet_virtio 9p ext4 overlay}
kver=""
[ -z "$MODULES" ] || kver=$(kernel_version)

mkdir -p "$out"
root=$(mktemp -d "$out/.initrd-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,newroot,modules}
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
progress 20 "collecting modules${kver:+ for $kver}"

# A module file ends with its signature, a 12-byte struct whose last 4 bytes are the
# big-endian signature length, and the magic string; cut all of it off.
MAGIC='~Module signature appended~'
strip_sig() {
  local f=$1 size siglen
  size=$(stat -c %s "$f")
  [ "$(tail -c 28 "$f" | head -c 27)" = "$MAGIC" ] || return 0
  siglen=$(tail -c 32 "$f" | head -c 4 | od -An -tu1 | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
  truncate -s $((size - 28 - 12 - siglen)) "$f"
}

: > "$root/modules/order"
for m in $MODULES; do
  modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r path; do
  name=$(basename "$path")
  case "$name" in
    *.ko.xz) xz -dc "$path" > "$root/modules/${name%.xz}"; name=${name%.xz} ;;
    *.ko.zst) zstd -dcq "$path" > "$root/modules/${name%.zst}"; name=${name%.zst} ;;
    *) cp "$path" "$root/modules/$name" ;;
  esac
  strip_sig "$root/modules/$name"
  echo "$name" >> "$root/modules/order"
done
progress 60 "$(wc -l < "$root/modules/order") modules"

install -m 0755 "$here/init" "$root/init"
install -m 0755 "$agent" "$root/box-agent"
(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet --reproducible) \
  | gzip -1 > "$out/initrd.img.tmp"
mv "$out/initrd.img.tmp" "$out/initrd.img"
progress 100 "initrd ready ($(du -h "$out/initrd.img" | cut -f1))"
