#!/bin/bash
# Writes <out>/vmlinux: the uncompressed ELF kernel from Debian's stock bzImage, for
# PVH direct boot on -M microvm (no firmware, no in-guest decompression).
# Usage: build-kernel.sh <out-dir>
source "$(dirname "$0")/common.sh"
out=${1:?usage: build-kernel.sh <out-dir>}
need od dd
kver=$(kernel_version)
bz=/boot/vmlinuz-$kver
mkdir -p "$out"
progress 10 "extracting vmlinux from $bz"

le32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
le8() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
is_elf() { [ "$(head -c4 "$1" | od -An -tx1 | tr -d ' ')" = "7f454c46" ]; }

# Try every decompressor on the stream starting at byte offset $1; keep the first ELF.
try_at() {
  local off=$1 tool
  for tool in "xz -dc" "zstd -dcq" "gzip -dc" "bzip2 -dc" "lzma -dc" "lz4 -dc"; do
    command -v "${tool%% *}" >/dev/null 2>&1 || continue
    tail -c +"$((off + 1))" "$bz" | $tool > "$out/vmlinux.tmp" 2>/dev/null || true
    if [ -s "$out/vmlinux.tmp" ] && is_elf "$out/vmlinux.tmp"; then return 0; fi
  done
  return 1
}

# 1) The boot protocol header says where the payload is (payload_offset at 0x248,
#    relative to the protected-mode code that starts after (setup_sects+1)*512 bytes).
setup_sects=$(le8 "$bz" $((0x1f1))); [ "$setup_sects" = 0 ] && setup_sects=4
payload=$(( (setup_sects + 1) * 512 + $(le32 "$bz" $((0x248))) ))
if ! try_at "$payload"; then
  # 2) Fall back to scanning for compression magics, like scripts/extract-vmlinux.
  found=""
  for magic in '\xfd7zXZ\x00' '\x28\xb5\x2f\xfd' '\x1f\x8b\x08'; do
    for off in $(LC_ALL=C grep -aboP "$magic" "$bz" | cut -d: -f1); do
      if try_at "$off"; then found=1; break 2; fi
    done
  done
  [ -n "$found" ] || die "could not extract vmlinux from $bz"
fi
mv "$out/vmlinux.tmp" "$out/vmlinux"
echo "$kver" > "$out/kernel.version"
progress 100 "vmlinux ready ($kver, $(du -h "$out/vmlinux" | cut -f1))"
