import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BoxRuntime, EntryInfo, GuestAgent, GuestExec, VmConfig } from '../areas/boxes/runtime-port.js';
import { RuntimeError } from '../areas/boxes/runtime-port.js';

type VmState = 'running' | 'saved' | 'stopped';
type LostCb = Parameters<BoxRuntime['onUnexpectedExit']>[0];

/**
 * A stand-in runtime for fast route tests of the box state machine: a "VM" is a folder,
 * its agent runs commands on the host inside that folder. Real-VM tests use the QEMU runtime.
 */
export class FakeRuntime implements BoxRuntime {
  readonly name = 'fake';
  readonly state = new Map<string, VmState>();
  readonly calls: string[] = [];
  failNext: string | undefined;
  private lost: LostCb[] = [];

  constructor(private dir: string) {}

  private root(boxId: string) {
    return path.join(this.dir, 'fake-boxes', boxId);
  }
  private cpDir(id: string) {
    return path.join(this.dir, 'fake-checkpoints', id);
  }
  private step(name: string, boxId: string) {
    this.calls.push(`${name}:${boxId}`);
    if (this.failNext === name) {
      this.failNext = undefined;
      throw new RuntimeError(`injected ${name} failure`);
    }
  }

  async accelerator() {
    return 'none';
  }
  async create(cfg: VmConfig) {
    this.step('create', cfg.boxId);
    fs.mkdirSync(this.root(cfg.boxId), { recursive: true });
    this.state.set(cfg.boxId, 'running');
    this.writeConsole(cfg.boxId, `[fake] ${cfg.hostname} booted\nDebian GNU/Linux 12 ${cfg.hostname} ttyS0\n`);
  }
  /** The fake serial console: a file outside the box's own folder (its files stay the guest's). */
  consoleLog(boxId: string) {
    return path.join(this.dir, 'fake-consoles', `${boxId}.log`);
  }
  /** Test hook: the "guest" prints to its serial console. */
  writeConsole(boxId: string, text: string) {
    fs.mkdirSync(path.join(this.dir, 'fake-consoles'), { recursive: true });
    fs.appendFileSync(this.consoleLog(boxId), text);
  }
  async agent(boxId: string): Promise<GuestAgent> {
    if (this.state.get(boxId) !== 'running') throw new RuntimeError(`box ${boxId} is not running`);
    return new FakeAgent(this.root(boxId));
  }
  async isAlive(boxId: string) {
    return this.state.get(boxId) === 'running';
  }
  async adopt(cfg: VmConfig) {
    const adopted = this.state.get(cfg.boxId) === 'running';
    return { adopted, note: adopted ? 'running' : 'no VM' };
  }
  async save(boxId: string) {
    this.step('save', boxId);
    this.state.set(boxId, 'saved');
  }
  async restore(cfg: VmConfig) {
    this.step('restore', cfg.boxId);
    this.state.set(cfg.boxId, 'running');
  }
  async coldBoot(cfg: VmConfig) {
    this.step('coldBoot', cfg.boxId);
    this.state.set(cfg.boxId, 'running');
    this.writeConsole(cfg.boxId, `[fake] ${cfg.hostname} booted again\n`);
  }
  async stop(boxId: string) {
    this.state.set(boxId, 'stopped');
  }
  async destroy(boxId: string) {
    this.step('destroy', boxId);
    this.state.delete(boxId);
    fs.rmSync(this.root(boxId), { recursive: true, force: true });
    fs.rmSync(this.consoleLog(boxId), { force: true });
  }
  async checkpoint(boxId: string, id: string, _running: boolean, onSaved?: () => void) {
    this.step('checkpoint', boxId);
    fs.cpSync(this.root(boxId), this.cpDir(id), { recursive: true });
    onSaved?.(); // as QEMU's runtime does: called, not waited for
    return { sizeBytes: 4096 };
  }
  async cloneFromCheckpoint(id: string, cfg: VmConfig) {
    this.step('clone', cfg.boxId);
    fs.cpSync(this.cpDir(id), this.root(cfg.boxId), { recursive: true });
    this.state.set(cfg.boxId, 'running');
  }
  async deleteCheckpoint(id: string) {
    fs.rmSync(this.cpDir(id), { recursive: true, force: true });
  }
  onUnexpectedExit(cb: LostCb) {
    this.lost.push(cb);
  }
  /** Test hook: the VM dies on its own. */
  crash(boxId: string, kind: 'killed' | 'panic' | 'agent_lost', message = 'test crash') {
    this.state.set(boxId, 'stopped');
    for (const cb of this.lost) cb(boxId, { kind, message });
  }
  /** Test hooks for metrics: CPU seconds and RSS per box (sample) and disk bytes per box. */
  readonly usage = new Map<string, { cpuSeconds: number; rssBytes: number }>();
  readonly disk = new Map<string, number>();
  diskUsageBytes(boxId: string) {
    return this.disk.get(boxId) ?? 0;
  }
  /** Live published ports of running fake VMs, as `boxId:hostPort->guestPort`. */
  readonly forwards = new Set<string>();
  async addForward(boxId: string, hostPort: number, guestPort: number) {
    if (this.state.get(boxId) !== 'running') throw new RuntimeError(`box ${boxId} is not running`);
    this.forwards.add(`${boxId}:${hostPort}->${guestPort}`);
  }
  async removeForward(boxId: string, hostPort: number) {
    for (const f of this.forwards) if (f.startsWith(`${boxId}:${hostPort}->`)) this.forwards.delete(f);
  }
  async sample(boxId: string) {
    if (this.state.get(boxId) !== 'running') return undefined;
    return this.usage.get(boxId) ?? { cpuSeconds: 0, rssBytes: 0 };
  }
  async close() {}
}

class FakeAgent implements GuestAgent {
  constructor(private root: string) {}
  private p(guestPath: string) {
    return path.join(this.root, path.posix.normalize(guestPath));
  }

  /** Runs on the host (the cwd maps into the box folder); HOME is what the guest gives root. */
  exec(o: Parameters<GuestAgent['exec']>[0]): GuestExec {
    const child = spawn(o.argv[0]!, o.argv.slice(1), { cwd: this.p(o.cwd ?? '/'), env: { PATH: process.env.PATH, HOME: '/root', ...o.env }, detached: true });
    let timedOut = false;
    const t = o.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          process.kill(-child.pid!, 'SIGKILL');
        }, o.timeoutMs)
      : undefined;
    return {
      stdout: child.stdout!,
      stderr: child.stderr!,
      writeStdin: (b) => new Promise((res, rej) => child.stdin!.write(b, (e) => (e ? rej(e) : res()))),
      closeStdin: () => child.stdin!.end(),
      signal: (s) => {
        try {
          process.kill(-child.pid!, s);
        } catch {
          /* already gone */
        }
      },
      resize: () => {},
      exit: new Promise((resolve) =>
        child.on('exit', (code, sig) => {
          clearTimeout(t);
          resolve({ exitCode: code, signal: sig ? (({ SIGKILL: 9, SIGTERM: 15, SIGINT: 2, SIGHUP: 1 } as Record<string, number>)[sig] ?? 1) : null, timedOut });
        }),
      ),
    };
  }
  async writeFile(p: string, o: { mode: number; createParents: boolean }, src: Readable) {
    const target = this.p(p);
    if (o.createParents) fs.mkdirSync(path.dirname(target), { recursive: true });
    if (fs.existsSync(target) && fs.statSync(target).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'is_directory' });
    let size = 0;
    const count = new PassThrough();
    count.on('data', (c: Buffer) => (size += c.length));
    await pipeline(src, count, fs.createWriteStream(target, { mode: o.mode }));
    fs.chmodSync(target, o.mode);
    return { sizeBytes: size };
  }
  async readFile(p: string) {
    const target = this.p(p);
    if (!fs.existsSync(target)) throw Object.assign(new Error('missing'), { code: 'not_found' });
    const st = fs.statSync(target);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'is_directory' });
    return { mode: st.mode & 0o7777, size: st.size, stream: fs.createReadStream(target) };
  }
  async stat(p: string): Promise<EntryInfo> {
    const st = fs.statSync(this.p(p));
    return { name: path.basename(p), type: st.isDirectory() ? 'directory' : 'file', size: st.size, modified_time: st.mtimeMs / 1000, mode: st.mode & 0o7777 };
  }
  /** Like the agent: sorted by name (byte order), in batches of 100. */
  async *listDir(p: string): AsyncGenerator<EntryInfo[]> {
    const dir = this.p(p);
    if (!fs.existsSync(dir)) throw Object.assign(new Error('missing'), { code: 'not_found' });
    const names = fs.readdirSync(dir).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (let i = 0; i < names.length; i += 100)
      yield names.slice(i, i + 100).map((n) => {
        const st = fs.lstatSync(path.join(dir, n));
        return {
          name: n,
          type: st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'file',
          size: st.size,
          modified_time: st.mtimeMs / 1000,
          mode: st.mode & 0o7777,
        } as EntryInfo;
      });
  }
}
