#!/bin/sh
# Puts the desktop image's own files in place (run once by the Boxfile).
set -e
F=/opt/box-desktop
install -m 755 $F/box-desktop-start $F/box-browser /usr/local/bin/
install -m 644 $F/box-browser.desktop /usr/share/applications/
# @e2b/desktop's stream runs /opt/noVNC/utils/novnc_proxy (Debian's noVNC lives in /usr/share/novnc)
ln -sfn /usr/share/novnc /opt/noVNC
# Box's live view runs x11vnc under its own name, so `pgrep -x x11vnc` / `pkill x11vnc` (E2B's stream) leave it alone
ln -sf /usr/bin/x11vnc /usr/local/bin/box-vnc
# links open in the box's browser (xdg-open)
mkdir -p /etc/xdg
printf '[Default Applications]\ntext/html=box-browser.desktop\nx-scheme-handler/http=box-browser.desktop\nx-scheme-handler/https=box-browser.desktop\n' > /etc/xdg/mimeapps.list
update-desktop-database -q /usr/share/applications || true
# Xfce for `user`: a light panel (xfce4-panel.xml) without the first-start question, and no compositor (no GPU under Xvfb)
X=/home/user/.config/xfce4/xfconf/xfce-perchannel-xml
mkdir -p $X
install -m 644 $F/xfce4-panel.xml $X/xfce4-panel.xml
install -m 644 $F/xfwm4.xml $X/xfwm4.xml
chown -R user:user /home/user/.config
# `startxfce4` when the session is already up (the template's) leaves it be: @e2b/desktop runs it at every create
install -m 755 $F/startxfce4 /usr/local/bin/startxfce4
