# Shared helpers for the guest image recipe. Sourced, not executed.
# Progress protocol (read by src-server/runtime/guest-image/guest-image.ts): lines on stdout of the
# form "@@progress <percent> <message>". Everything else is log output.
set -euo pipefail

progress() { echo "@@progress $1 $2"; }
die() { echo "error: $*" >&2; exit 1; }
need() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 || die "missing tool: $c (install it with apt)"; done; }

# Newest installed kernel that has both a /boot image and a module tree, unless
# BOX_KERNEL_VERSION pins one.
kernel_version() {
  if [ -n "${BOX_KERNEL_VERSION:-}" ]; then echo "$BOX_KERNEL_VERSION"; return; fi
  local v best=""
  for v in $(ls /lib/modules 2>/dev/null | sort -V); do
    [ -f "/boot/vmlinuz-$v" ] && [ -f "/lib/modules/$v/modules.dep" ] && best="$v"
  done
  [ -n "$best" ] || die "no kernel found: apt-get install linux-image-amd64"
  echo "$best"
}

# The Debian mirror this machine is configured with (deb822 or one-line format), so
# the recipe never names a host itself. BOX_DEBIAN_MIRROR overrides.
debian_mirror() {
  if [ -n "${BOX_DEBIAN_MIRROR:-}" ]; then echo "$BOX_DEBIAN_MIRROR"; return; fi
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' "$f" | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$uri" ] && { echo "${uri%/}"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f" \
      | grep -E '/debian/?$' | head -n1 || true)
    [ -n "$uri" ] && { echo "${uri%/}"; return; }
  done
  die "no Debian mirror found in the apt sources"
}
