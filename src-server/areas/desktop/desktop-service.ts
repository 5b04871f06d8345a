/**
 * Computer use on a box's screen (issue 37): screenshots, the mouse and keyboard, apps,
 * windows, run through the guest agent as the box's `user` on display :0. The desktop
 * itself (Xvfb, Xfce, the live view's VNC server) is started by the image's
 * `box-desktop-start`: already running in a warm template (desktop-warmup.ts), started on
 * first use otherwise (a cold boot, a box restored from an older checkpoint).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BoxRecord, GuestAgent } from '../boxes/ports.js';
import { conflict, Failed, invalid } from '../../kernel/domain-errors.js';
import { DESKTOP_CDP_PATH, DESKTOP_VNC_PATH, type DesktopAction, type DesktopActionResult, type DesktopInfo, type DesktopWindow } from '@box/contract/desktop';
import type { DesktopBoxes } from './ports.js';
import {
  actionCommand,
  type GuestCommand,
  INFO_SCRIPT,
  LAUNCH_SCRIPT,
  OPEN_SCRIPT,
  parseCursor,
  parseInfo,
  parseWindows,
  FRAMEBUFFER_FILE,
  SCREENSHOT_SCRIPT,
  WINDOWS_SCRIPT,
} from './xdo.js';
import { encodePng, readXwd, scaleImage } from './screen-image.js';

const DISPLAY = ':0';
const USER_ENV = { DISPLAY, HOME: '/home/user', USER: 'user', LOGNAME: 'user', XDG_RUNTIME_DIR: '/tmp' };
export const START_SCRIPT = 'command -v box-desktop-start >/dev/null || exit 45; exec box-desktop-start';
const NOT_DESKTOP = 45;
const ACTION_TIMEOUT_MS = 60_000;
const SETTLE_WINDOW_MS = 150;
const SETTLE_MAX_MS = 4000;
/** A VM using less CPU than this (cores) is not drawing anything (an idle desktop box under TCG: 0-0.1, spikes to 0.3). */
const QUIET_CPU = 0.3;

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

async function collect(agent: GuestAgent, argv: string[], opts: { user?: string; env?: Record<string, string>; timeoutMs: number }): Promise<Ran> {
  const ex = agent.exec({ argv, user: opts.user, env: opts.env, timeoutMs: opts.timeoutMs });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  ex.stdout.on('data', (b: Buffer) => out.push(b));
  ex.stderr.on('data', (b: Buffer) => err.push(b));
  const r = await ex.exit;
  return { code: r.timedOut ? null : r.exitCode, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString().trim() };
}

export class DesktopService {
  /** Boxes whose desktop answered since the service (or the box) started. */
  private up = new Map<string, Promise<void>>();

  constructor(private boxes: DesktopBoxes) {
    boxes.onGone((id) => this.up.delete(id));
  }

  private async agentOf(box: BoxRecord): Promise<GuestAgent> {
    const running = await this.boxes.ensureRunning(box);
    await this.boxes.touch(running.box_id);
    return this.boxes.agent(running.box_id);
  }

  /** Starts the box's desktop unless it is known to be up; 409 for a box without one. */
  async ensureDesktop(box: BoxRecord): Promise<GuestAgent> {
    const agent = await this.agentOf(box);
    let p = this.up.get(box.box_id);
    if (!p) {
      p = collect(agent, ['/bin/sh', '-c', START_SCRIPT], { timeoutMs: 900_000 }).then((r) => {
        if (r.code === NOT_DESKTOP)
          throw conflict(`Box ${box.name} has no desktop: create it from the "desktop" image (image: "desktop").`, 'desktop_unavailable', 'box_id');
        if (r.code !== 0) throw new Failed(`The desktop of box ${box.name} did not start: ${r.stderr.slice(-500) || `exit ${r.code}`}`);
      });
      this.up.set(box.box_id, p);
      p.catch(() => this.up.get(box.box_id) === p && this.up.delete(box.box_id));
    }
    await p;
    return agent;
  }

  /** Runs a command on the screen as `user`; a lost display (the desktop was stopped) restarts it once. */
  private async onScreen(box: BoxRecord, cmd: GuestCommand, timeoutMs = ACTION_TIMEOUT_MS): Promise<Ran> {
    const argv = ['/bin/sh', '-c', cmd.script, 'box-desktop', ...cmd.args];
    let r = await collect(await this.ensureDesktop(box), argv, { user: 'user', env: USER_ENV, timeoutMs });
    if (r.code !== 0 && /Can't open display|cannot open display|Failed creating new xdo/i.test(r.stderr)) {
      this.up.delete(box.box_id);
      r = await collect(await this.ensureDesktop(box), argv, { user: 'user', env: USER_ENV, timeoutMs });
    }
    return r;
  }

  private must(r: Ran, what: string): string;
  private must(r: Ran, what: string, bytes: true): Buffer;
  private must(r: Ran, what: string, bytes?: true): string | Buffer {
    if (r.code === null) throw new Failed(`${what} timed out in the box.`);
    if (r.code !== 0) throw new Failed(`${what} failed in the box (exit ${r.code}): ${r.stderr.slice(-500)}`);
    return bytes ? r.stdout : r.stdout.toString();
  }

  async info(box: BoxRecord): Promise<DesktopInfo> {
    const i = parseInfo(this.must(await this.onScreen(box, { script: INFO_SCRIPT, args: [] }), 'Reading the screen'));
    return {
      box_id: box.box_id,
      display: DISPLAY,
      width: i.width,
      height: i.height,
      cursor: i.cursor,
      focused_window: i.focused,
      vnc_path: `${DESKTOP_VNC_PATH}?box_id=${box.box_id}`,
      cdp_path: `${DESKTOP_CDP_PATH}?box_id=${box.box_id}`,
    };
  }

  /**
   * The screen once the box has finished reacting to what was just done (the gateway's
   * computer-use loop, after an action): a browser repaints a click some hundreds of
   * milliseconds later, under TCG over a second for the first one, and a screenshot taken at
   * once, or once two frames matched, showed the screen before it. The box's VM is watched
   * instead: once its CPU time grows by less than 30% of a core in two windows of 150 ms in a
   * row, nothing is drawing, and one screenshot is taken; at most 4 s after the call.
   */
  async settledScreenshot(box: BoxRecord): Promise<Buffer> {
    const end = Date.now() + SETTLE_MAX_MS;
    let last = await this.boxes.cpuSeconds(box.box_id);
    let at = performance.now();
    if (last === undefined) await sleep(1000); // a runtime without CPU figures: a fixed wait
    for (let quiet = 0; last !== undefined && quiet < 2 && Date.now() < end;) {
      await sleep(SETTLE_WINDOW_MS);
      const now = await this.boxes.cpuSeconds(box.box_id);
      const t = performance.now();
      if (now === undefined) break;
      quiet = (now - last) / ((t - at) / 1000) < QUIET_CPU ? quiet + 1 : 0;
      [last, at] = [now, t];
    }
    return this.screenshot(box);
  }

  /**
   * A PNG of the screen; `scale` (0.1–1) shrinks it. The screen is read from Xvfb's
   * framebuffer file (no process in the box: a clone's first screenshot costs no cold
   * start of a program under TCG), or else dumped by xwd; the host scales and encodes it.
   */
  async screenshot(box: BoxRecord, scale = 1): Promise<Buffer> {
    const percent = Math.max(10, Math.min(100, Math.round(scale * 100)));
    // no file yet: the desktop is not up (a box cold-booted while its template builds); started, then read
    const dump =
      (await this.framebuffer(box)) ??
      (await this.ensureDesktop(box).then(() => this.framebuffer(box))) ??
      this.must(await this.onScreen(box, { script: SCREENSHOT_SCRIPT, args: [] }), 'The screenshot', true);
    let img;
    try {
      img = readXwd(dump);
    } catch (e) {
      throw new Failed(`The screenshot could not be read: ${(e as Error).message}.`);
    }
    return encodePng(scaleImage(img, percent));
  }

  /** Xvfb's framebuffer file, when the box's desktop keeps one (undefined: none, or no desktop yet). */
  private async framebuffer(box: BoxRecord): Promise<Buffer | undefined> {
    const agent = await this.agentOf(box);
    try {
      const f = await agent.readFile(FRAMEBUFFER_FILE);
      const parts: Buffer[] = [];
      for await (const b of f.stream) parts.push(b as Buffer);
      return Buffer.concat(parts);
    } catch {
      return undefined;
    }
  }

  async act(box: BoxRecord, action: DesktopAction): Promise<DesktopActionResult> {
    if (action.type === 'click' && (action.x === undefined) !== (action.y === undefined))
      throw invalid('x and y go together', action.x === undefined ? 'x' : 'y');
    if (action.type === 'scroll' && (action.x === undefined) !== (action.y === undefined))
      throw invalid('x and y go together', action.x === undefined ? 'x' : 'y');
    const out = this.must(await this.onScreen(box, actionCommand(action)), `The ${action.type} action`);
    return { type: action.type, cursor: parseCursor(out) };
  }

  async windows(box: BoxRecord): Promise<DesktopWindow[]> {
    return parseWindows(this.must(await this.onScreen(box, { script: WINDOWS_SCRIPT, args: [] }), 'Listing the windows'));
  }

  async launch(box: BoxRecord, app: string, args: string[] = []): Promise<{ app: string; pid: number | null }> {
    const r = await this.onScreen(box, { script: LAUNCH_SCRIPT, args: [app, ...args] });
    if (r.code === 44) throw invalid(`The box has no desktop entry or program named "${app}".`, 'app');
    const pid = /^PID=(\d+)$/m.exec(this.must(r, `Launching ${app}`))?.[1];
    return { app, pid: pid ? Number(pid) : null };
  }

  async open(box: BoxRecord, target: string): Promise<{ target: string }> {
    this.must(await this.onScreen(box, { script: OPEN_SCRIPT, args: [target] }), `Opening ${target}`);
    return { target };
  }

  /** The guest agent of a box whose desktop is up (the live view and CDP relays). */
  relayAgent(box: BoxRecord): Promise<GuestAgent> {
    return this.ensureDesktop(box);
  }
}
