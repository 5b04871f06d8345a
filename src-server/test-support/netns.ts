import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Test support for the team-server tests: a network namespace joined to this one by a veth
 * pair, so a second service listens on a real non-loopback address (`nsAddr`), and the
 * headless service spawned as its users run it (optionally inside the namespace). Needs root
 * (`ip netns add`); `canMakeNetns()` says whether this machine allows it.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Netns {
  name: string;
  /** This namespace's end of the pair. */
  hostAddr: string;
  /** The address inside the namespace (the "remote" service listens here). */
  nsAddr: string;
  destroy(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

export function canMakeNetns(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    ip('netns', 'list');
    return true;
  } catch {
    return false;
  }
}

/** A namespace with `10.<a>.<b>.2/24` inside, `.1` here; `tag` keeps parallel runs apart. */
export function makeNetns(tag = process.pid % 250): Netns {
  const name = `boxt${process.pid}`;
  const vh = `bxh${process.pid}`.slice(0, 15);
  const vn = `bxn${process.pid}`.slice(0, 15);
  const net = `10.213.${tag}`;
  const destroy = () => {
    for (const cmd of [
      ['netns', 'del', name],
      ['link', 'del', vh],
    ])
      try {
        ip(...cmd);
      } catch {
        // already gone (deleting the namespace removes its end of the pair, and with it ours)
      }
  };
  destroy();
  try {
    ip('netns', 'add', name);
    ip('link', 'add', vh, 'type', 'veth', 'peer', 'name', vn);
    ip('link', 'set', vn, 'netns', name);
    ip('addr', 'add', `${net}.1/24`, 'dev', vh);
    ip('link', 'set', vh, 'up');
    ip('-n', name, 'addr', 'add', `${net}.2/24`, 'dev', vn);
    ip('-n', name, 'link', 'set', vn, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (e) {
    destroy();
    throw e;
  }
  return { name, hostAddr: `${net}.1`, nsAddr: `${net}.2`, destroy };
}

export interface Headless {
  child: ChildProcess;
  url: string;
  /** The TLS fingerprint the banner printed, if it serves HTTPS. */
  fingerprint?: string;
  output(): string;
  stop(): Promise<void>;
}

/** `node src-server/headless.ts <args>` (in `netns` if given), until its banner names its URL. */
export async function spawnHeadless(o: { args: string[]; env: Record<string, string>; netns?: string; timeoutMs?: number }): Promise<Headless> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BOX_') && k !== 'VITEST'));
  const node = [process.execPath, 'src-server/headless.ts', ...o.args];
  const [cmd, ...args] = o.netns ? ['ip', 'netns', 'exec', o.netns, ...node] : node;
  const child = spawn(cmd!, args, {
    cwd: ROOT,
    env: { ...clean, BOX_HEADLESS: '1', BOX_TEMPLATES: '0', BOX_ENGINE_DISCOVERY: '0', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const deadline = Date.now() + (o.timeoutMs ?? 120_000);
  let url: string | undefined;
  while (!(url = /listening on (https?:\/\/\S+)/.exec(out)?.[1]) || !/On Ctrl\+C/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const fingerprint = /SHA-256 fingerprint:\s*\n\s*([0-9A-F:]{95})/.exec(out)?.[1];
  return {
    child,
    url,
    fingerprint,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}
