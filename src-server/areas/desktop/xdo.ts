/**
 * The guest commands behind each desktop request: xdotool, scrot and wmctrl on display :0
 * (the desktop image, resources/images/desktop). Each request is one exec: the action,
 * then the cursor position, so an agent's step costs one round trip to the guest. Values
 * travel as positional arguments of `sh -c`, never spliced into the script.
 */
import type { DesktopAction, DesktopWindow, Point } from '@box/contract/desktop';

export interface GuestCommand {
  script: string;
  args: string[];
}

const CURSOR = 'xdotool getmouselocation --shell';
/** The same, chained to an xdotool command line: one process for the action and the answer. */
const THEN_CURSOR = 'getmouselocation --shell';
const BUTTON = { left: '1', middle: '2', right: '3' } as const;
const WHEEL = { up: '4', down: '5', left: '6', right: '7' } as const;

/*
 * No `mousemove --sync`: it waits for the pointer to leave where it was, so a move to where it
 * already is (a second click on the same button) waited out xdotool's ~16 s limit. The X server
 * takes XTest's motion and button events in order, so a click after a move lands at the new
 * position without waiting.
 */
const at = (x?: number, y?: number) => (x !== undefined && y !== undefined ? `mousemove ${x} ${y} ` : '');

/** The command of an action (validated by the contract: numbers are integers, keys a safe syntax). */
export function actionCommand(a: DesktopAction): GuestCommand {
  switch (a.type) {
    case 'move':
      return { script: `exec xdotool mousemove ${a.x} ${a.y} ${THEN_CURSOR}`, args: [] };
    case 'click': {
      const repeat = a.double ? 'click --repeat 2 --delay 80' : 'click';
      return { script: `exec xdotool ${at(a.x, a.y)}${repeat} ${BUTTON[a.button ?? 'left']} ${THEN_CURSOR}`, args: [] };
    }
    case 'drag': {
      const b = BUTTON[a.button ?? 'left'];
      const mid = { x: Math.round((a.from.x + a.to.x) / 2), y: Math.round((a.from.y + a.to.y) / 2) };
      return {
        script: `exec xdotool mousemove ${a.from.x} ${a.from.y} mousedown ${b} sleep 0.05 mousemove ${mid.x} ${mid.y} sleep 0.05 mousemove ${a.to.x} ${a.to.y} sleep 0.05 mouseup ${b} ${THEN_CURSOR}`,
        args: [],
      };
    }
    case 'scroll':
      return { script: `exec xdotool ${at(a.x, a.y)}click --repeat ${a.amount ?? 3} --delay 20 ${WHEEL[a.direction ?? 'down']} ${THEN_CURSOR}`, args: [] };
    // `type` and `key` take every argument after them: the cursor is a second command
    case 'type':
      return { script: `xdotool type --delay 8 -- "$1" && ${CURSOR}`, args: [a.text] };
    case 'key':
      return { script: `xdotool key --delay 20 --clearmodifiers -- "$@" && ${CURSOR}`, args: a.keys.split(' ') };
  }
}

/** Reads `xdotool getmouselocation --shell` (X=..., Y=...) from the end of an output. */
export function parseCursor(out: string): Point {
  const x = /^X=(\d+)/m.exec(out);
  const y = /^Y=(\d+)/m.exec(out);
  if (!x || !y) throw new Error(`no cursor position in: ${out.slice(-200)}`);
  return { x: Number(x[1]), y: Number(y[1]) };
}

/** Screen size, cursor and the focused window in one go. */
export const INFO_SCRIPT = `xdotool getdisplaygeometry && ${CURSOR} && w=$(xdotool getactivewindow 2>/dev/null) && echo "WIN=$w" && echo "PID=$(xdotool getwindowpid $w 2>/dev/null)" && echo "TITLE=$(xdotool getwindowname $w)"; true`;

export function parseInfo(out: string): { width: number; height: number; cursor: Point; focused: DesktopWindow | null } {
  const size = /^(\d+) (\d+)$/m.exec(out);
  if (!size) throw new Error(`no screen size in: ${out.slice(0, 200)}`);
  const win = /^WIN=(\d+)$/m.exec(out);
  const pid = /^PID=(\d+)$/m.exec(out);
  const title = /^TITLE=(.*)$/m.exec(out);
  return {
    width: Number(size[1]),
    height: Number(size[2]),
    cursor: parseCursor(out),
    focused: win ? { id: win[1]!, title: title?.[1] ?? '', pid: pid ? Number(pid[1]) : null, focused: true } : null,
  };
}

/** Managed windows (wmctrl -lp: id, desktop, pid, host, title) and the active one's id. */
export const WINDOWS_SCRIPT = `echo "ACTIVE=$(xdotool getactivewindow 2>/dev/null)"; wmctrl -lp`;

export function parseWindows(out: string): DesktopWindow[] {
  const active = /^ACTIVE=(\d*)$/m.exec(out)?.[1] ?? '';
  const list: DesktopWindow[] = [];
  for (const line of out.split('\n')) {
    const m = /^(0x[0-9a-f]+)\s+-?\d+\s+(\d+)\s+\S+\s?(.*)$/i.exec(line);
    if (!m) continue;
    const id = String(parseInt(m[1]!, 16));
    const pid = Number(m[2]);
    list.push({ id, title: m[3] ?? '', pid: pid > 0 ? pid : null, focused: id === active });
  }
  return list;
}

/**
 * The screen as an XWD dump on stdout (one process, no image encoding in the guest: the host
 * scales and encodes it, screen-image.ts). Used when the framebuffer file is not there
 * (a desktop image built before Xvfb kept one).
 */
export const SCREENSHOT_SCRIPT = 'exec xwd -root -silent';

/** Where box-desktop-start's Xvfb keeps screen 0 (-fbdir): the screen as an XWD file, read with no process at all. */
export const FRAMEBUFFER_FILE = '/run/box-desktop/Xvfb_screen0';

/** Starts a desktop entry (gtk-launch) or a program, detached from the request. */
export const LAUNCH_SCRIPT = `app=$1; shift
if [ -f "/usr/share/applications/$app.desktop" ] || [ -f "$HOME/.local/share/applications/$app.desktop" ]; then
  setsid -f gtk-launch "$app" "$@" >/dev/null 2>&1 </dev/null; echo "PID="
elif command -v "$app" >/dev/null 2>&1; then
  setsid "$app" "$@" >/dev/null 2>&1 </dev/null & echo "PID=$!"
else
  echo "no desktop entry or program named $app" >&2; exit 44
fi`;

export const OPEN_SCRIPT = `setsid -f xdg-open "$1" >/dev/null 2>&1 </dev/null`;
