import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service as its users start it (`npm run serve`, `npm start`, or node on headless.ts),
 * in a process group of its own so a test can signal the whole group as a terminal, systemd
 * or `docker stop` does. Used by the stop tests and scripts/crash-suite.ts.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type Launcher = 'npm run serve' | 'npm start' | 'node';

export interface Spawned {
  child: ChildProcess;
  url: string;
  key: string;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export async function spawnService(opts: {
  launcher: Launcher;
  dataDir: string;
  key?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}): Promise<Spawned> {
  const key = opts.key ?? 'bxk_spawned_service_test_0000000000000000';
  const serviceArgs = ['--port', '0', '--data-dir', opts.dataDir, '--web-ui', path.join(opts.dataDir, 'no-ui')];
  const [cmd, args] =
    opts.launcher === 'npm run serve'
      ? ['npm', ['run', 'serve', '--', ...serviceArgs]]
      : opts.launcher === 'npm start'
        ? ['npm', ['start', '--', ...serviceArgs]]
        : [process.execPath, ['src-server/headless.ts', ...serviceArgs]];
  const child = spawn(cmd, args as string[], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, BOX_API_KEY: key, BOX_HEADLESS: '1', BOX_START_NO_BUILD: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  let url: string | undefined;
  while (!(url = /listening on (http:\/\/\S+)/.exec(out)?.[1])) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const api = (pathname: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${key}`);
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('content-type', 'application/json');
    }
    return fetch(`${url}${pathname}`, { ...init, headers, body });
  };
  return { child, url, key, output: () => out, exited, api };
}

/** Signals the whole process group of a spawned service (its launchers and the service). */
export function signalGroup(s: Spawned, signal: NodeJS.Signals): void {
  process.kill(-s.child.pid!, signal);
}

/**
 * Pids of the processes whose command line names `dir` (QEMUs of a data dir: their sockets,
 * disks and pid files are all under it). Other developers' QEMUs are never counted.
 */
export function processesUnder(dir: string, match = 'qemu'): number[] {
  const pids: number[] = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    let cmd: string;
    try {
      cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (cmd.includes(dir) && cmd.includes(match)) pids.push(Number(p));
  }
  return pids;
}

/** SIGKILLs what processesUnder finds (clean-up after a failed test). */
export function killUnder(dir: string): void {
  for (const pid of processesUnder(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
}
