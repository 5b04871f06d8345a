/**
 * While a service starts on a data dir whose boxes kept running, their QEMUs' scheduling
 * groups yield to it, and get their niceness back once it answers (issue 28: restart in
 * under 3 s with 40 running). A stand-in process plays the QEMU: its own session (as a
 * daemonized QEMU has), its command line naming the box folder, its pid in qemu.pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { groupNice, yieldVmsWhileStarting } from './vm-priority.js';

const autogroup = fs.existsSync('/proc/self/autogroup');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vm-priority-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function standIn(boxId: string): number {
  const folder = path.join(dataDir, 'boxes', boxId);
  fs.mkdirSync(folder, { recursive: true });
  // named as box QEMUs are (-name box,process=box-qemu), started in a folder of the data dir
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', 'process=box-qemu', folder], { detached: true, stdio: 'ignore' });
  children.push(child);
  fs.writeFileSync(path.join(folder, 'qemu.pid'), `${child.pid}\n`);
  return child.pid!;
}

it.skipIf(!autogroup)('running VMs of the data dir yield while the service starts, and get their niceness back', () => {
  const a = standIn('box_a');
  const b = standIn('box_b');
  // a stale pid file (no such process) and a pid that is not this box's VM are left alone
  fs.mkdirSync(path.join(dataDir, 'boxes', 'box_gone'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'boxes', 'box_gone', 'qemu.pid'), '999999999\n');
  fs.mkdirSync(path.join(dataDir, 'boxes', 'box_other'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'boxes', 'box_other', 'qemu.pid'), `${process.pid}\n`);
  const own = groupNice(process.pid);
  expect([groupNice(a), groupNice(b)]).toEqual([0, 0]);

  const restore = yieldVmsWhileStarting(dataDir);
  expect([groupNice(a), groupNice(b)]).toEqual([19, 19]);
  expect(groupNice(process.pid)).toBe(own);

  expect(restore()).toBe(2);
  expect([groupNice(a), groupNice(b)]).toEqual([0, 0]);
});

it('a data dir without boxes has nothing to yield', () => {
  expect(yieldVmsWhileStarting(path.join(dataDir, 'nowhere'))()).toBe(0);
});
