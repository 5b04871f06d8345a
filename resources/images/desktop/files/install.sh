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
# Every Chromium start (box-browser, xdg-open's choice, @e2b/desktop's launch) runs its network
# service in the browser process: under TCG a separate one took so long to start that the first
# navigation never committed ("Untitled"). Debian's /usr/bin/chromium sources /etc/chromium.d/*.
mkdir -p /etc/chromium.d
printf '%s\n' '# Box desktop (issue 37): Chromium under TCG' \
  'export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --enable-features=NetworkServiceInProcess2 --disable-gpu --renderer-process-limit=2 --no-first-run --password-store=basic"' \
  > /etc/chromium.d/box-desktop
# links open in the box's browser (xdg-open)
mkdir -p /etc/xdg
printf '[Default Applications]\ntext/html=box-browser.desktop\nx-scheme-handler/http=box-browser.desktop\nx-scheme-handler/https=box-browser.desktop\n' > /etc/xdg/mimeapps.list
update-desktop-database -q /usr/share/applications || true
# Xfce's preferred web browser (exo-open's WebBrowser helper) is box-browser, not Debian's
# chromium without box-browser's profile and DevTools port: every open (the API's,
# @e2b/desktop's) goes to the one browser
install -D -m 644 $F/box-browser-helper.desktop /usr/share/xfce4/helpers/box-browser.desktop
mkdir -p /etc/xdg/xfce4
printf 'WebBrowser=box-browser\n' > /etc/xdg/xfce4/helpers.rc
# Xfce for `user`: a light panel (xfce4-panel.xml) without the first-start question, and no compositor (no GPU under Xvfb)
X=/home/user/.config/xfce4/xfconf/xfce-perchannel-xml
mkdir -p $X
install -m 644 $F/xfce4-panel.xml $X/xfce4-panel.xml
install -m 644 $F/xfwm4.xml $X/xfwm4.xml
chown -R user:user /home/user/.config
# `startxfce4` when the session is already up (the template's) leaves it be: @e2b/desktop runs it at every create
install -m 755 $F/startxfce4 /usr/local/bin/startxfce4
# Chromium's own desktop entry (what exo-open and GIO pick for pages and files) starts
# box-browser too: one browser, one profile, its DevTools port (/usr/local/share comes first)
mkdir -p /usr/local/share/applications
sed 's|^Exec=/usr/bin/chromium|Exec=/usr/local/bin/box-browser|' /usr/share/applications/chromium.desktop > /usr/local/share/applications/chromium.desktop
grep -q '^Exec=/usr/local/bin/box-browser' /usr/local/share/applications/chromium.desktop
