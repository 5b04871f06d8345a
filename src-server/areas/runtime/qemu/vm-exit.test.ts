/**
 * A killed QEMU is not gone while its main thread is a zombie: its other threads may still
 * be tearing the process down, its files and their locks open. CI hit it: a failed box's
 * reboot started the new QEMU while the old one's disk lock was still held ("Failed to get
 * "write" lock"). The same state is made here for as long as the test needs it: a process
 * whose main thread has exited while a second thread holds a lock on a file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { boxFolder, exitingPid, livePid } from '../box-folder.js';
import { hasEnded, readProcStat } from '../../../kernel/util/proc-stat.js';
import { exited, killVm } from './vm.js';

const HALF_EXITED = `
import ctypes, fcntl, sys, threading, time
lock = open(sys.argv[1], 'w')
fcntl.flock(lock, fcntl.LOCK_EX)
threading.Thread(target=lambda: time.sleep(600)).start()
print('locked', flush=True)
ctypes.CDLL(None).pthread_exit(None)  # the main thread ends; the process and its lock live on
`;

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.pid && !hasEnded(readProcStat(c.pid))) process.kill(c.pid, 'SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Whether someone holds the lock (python3's flock, the same lock kind as ours to test). */
function lockHeld(file: string): Promise<boolean> {
  const probe = spawn('python3', [
    '-c',
    `import fcntl,sys\ntry: fcntl.flock(open(sys.argv[1],'w'), fcntl.LOCK_EX|fcntl.LOCK_NB)\nexcept OSError: sys.exit(3)`,
    file,
  ]);
  return new Promise((resolve) => probe.on('exit', (code) => resolve(code === 3)));
}

async function halfExited(lockFile: string): Promise<number> {
  const child = spawn('python3', ['-c', HALF_EXITED, lockFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`python3 exited with ${code}`)));
  });
  // its main thread turns zombie just after the print
  for (let i = 0; i < 200 && readProcStat(child.pid!)?.state !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
  return child.pid!;
}

it('a zombie main thread with a thread left is not an ended process: its lock is still held', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bx-exit-'));
  dirs.push(dir);
  const lockFile = path.join(dir, 'disk.lock');
  const pid = await halfExited(lockFile);
  const st = readProcStat(pid)!;
  expect(st.state).toBe('Z');
  expect(st.threads).toBe(2);
  expect(await lockHeld(lockFile)).toBe(true);
  expect(hasEnded(st)).toBe(false);
  expect(exited(pid)).toBe(false);

  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 500 && !exited(pid); i++) await new Promise((r) => setTimeout(r, 10));
  expect(exited(pid)).toBe(true);
  expect(await lockHeld(lockFile)).toBe(false);
});

it('killVm waits for the QEMU named by the pid file while it exits, though its command line is already gone', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bx-exit-'));
  dirs.push(dataDir);
  const folder = boxFolder(dataDir, 'box_exiting');
  fs.mkdirSync(folder.dir, { recursive: true });
  const lockFile = path.join(folder.dir, 'disk.lock');
  const pid = await halfExited(lockFile);
  fs.writeFileSync(folder.pidFile, `${pid}\n`);
  // what fooled the old check: no command line, so livePid does not know it
  expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toBe('');
  expect(livePid(folder)).toBeUndefined();
  expect(exitingPid(folder)).toBe(pid);

  await killVm(folder);
  expect(exited(pid)).toBe(true);
  expect(await lockHeld(lockFile), 'the lock is free when killVm returns: a new QEMU can take the disk').toBe(false);
  expect(fs.existsSync(folder.pidFile)).toBe(false);
});
