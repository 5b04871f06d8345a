#!/bin/sh
# Stand-in for the guest agent until resources/guest/build/box-agent exists: prints a
# marker on the console and answers a line protocol on the box.agent port:
#   host: "EXEC <shell command>"  guest: "OUT <base64 of stdout+stderr>", "EXIT <code>"
# It greets with "HELLO placeholder" whenever the host end (re)connects.
echo "BOX-AGENT-PLACEHOLDER READY" > /dev/console
port=""
for n in /sys/class/virtio-ports/*/name; do
  [ "$(cat "$n" 2>/dev/null)" = box.agent ] && port=/dev/$(basename "$(dirname "$n")")
done
[ -n "$port" ] || { echo "placeholder: no box.agent port" > /dev/console; while :; do sleep 3600; done; }
exec 3<>"$port"
echo "HELLO placeholder" >&3
while :; do
  if IFS= read -r line <&3; then
    case "$line" in
      EXEC\ *)
        out=$(sh -c "${line#EXEC }" </dev/null 2>&1); rc=$?
        echo "OUT $(printf '%s' "$out" | base64 -w0)" >&3
        echo "EXIT $rc" >&3 ;;
      HELLO*) echo "HELLO placeholder" >&3 ;;
    esac
  else
    sleep 0.1
  fi
done
