#!/bin/sh
# Stand-in for the guest agent when resources/guest/build/box-agent has not been built
# (make -C resources/guest/agent): proves the boot path by printing a marker, then idles.
echo "BOX-AGENT-PLACEHOLDER READY" > /dev/console
while :; do sleep 3600; done
