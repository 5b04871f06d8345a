/**
 * `npx tsx bench/failed-disk.ts [--runs 3]`: how to reach the files of a `failed` box's
 * stopped disk (issue 28), two designs on the same disk in the same run:
 *  - maintenance VM (what the service does, boxes/maintenance.ts): the box's disk booted cold
 *    in QEMU, its agent reads the file (first call: boot + read; next calls: the agent alone);
 *  - on the host with e2fsprogs: (a) `qemu-img convert` of the qcow2 chain to a raw file, then
 *    `e2fsck -E journal_only` (a killed VM leaves its journal to replay) and `debugfs cat`;
 *    (b) no copy: `qemu-storage-daemon` exports the chain as a raw FUSE file, same tools.
 * The disk: a box created on the runtime layer, a file written through its agent, the VM
 * killed (as a failed box's is).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VmConfig } from '../src-server/areas/boxes/runtime-port.js';
import { boxFolder, livePid } from '../src-server/areas/runtime/box-folder.js';
import { QemuBoxRuntime } from '../src-server/areas/runtime/qemu-box-runtime.js';
import { agentOf, testImageCache } from '../src-server/areas/runtime/test-support/vm-image.js';

const argv = process.argv.slice(2);
const runs = Number(argv[argv.indexOf('--runs') + 1]) || 3;
testImageCache();
const dataDir = mkdtempSync(join(tmpdir(), 'bxfdisk-'));
const work = mkdtempSync(join(tmpdir(), 'bxfdisk-work-'));
const rt = new QemuBoxRuntime(dataDir, { templates: false, warmPool: 0 });
const cfg: VmConfig = { boxId: 'bfailed', hostname: 'bfailed', image: 'debian', vcpus: 1, memoryMib: 512, diskGib: 2, mounts: [], forwards: [], files: [] };
const rows: Record<string, number[]> = {};
const rec = (k: string, ms: number) => (rows[k] ??= []).push(ms);
const timed = async <T>(k: string, fn: () => T | Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const r = await fn();
  rec(k, performance.now() - t0);
  return r;
};
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const CONTENT = 'written before the failure\n';

try {
  await rt.create(cfg);
  await agentOf(rt, cfg.boxId).writeFile('/root/kept.txt', {}, Buffer.from(CONTENT));
  const folder = boxFolder(dataDir, cfg.boxId);
  process.kill(livePid(folder)!, 'SIGKILL'); // a failed box's VM: gone without a shutdown
  await rt.stop(cfg.boxId);
  const disk = folder.disk;
  for (let i = 0; i < runs; i++) {
    // maintenance VM: cold boot of the disk, then the agent reads
    await timed('maintenance VM: boot', () => rt.coldBoot(cfg));
    const agent = agentOf(rt, cfg.boxId);
    const read = async () => {
      const f = await agent.readFile('/root/kept.txt');
      const chunks: Buffer[] = [];
      for await (const c of f.stream) chunks.push(c as Buffer);
      if (Buffer.concat(chunks).toString() !== CONTENT) throw new Error('maintenance VM read the wrong content');
    };
    const t0 = performance.now();
    await read();
    rec('maintenance VM: first read (boot + read)', rows['maintenance VM: boot']!.at(-1)! + performance.now() - t0);
    await timed('maintenance VM: next read', read);
    await rt.stop(cfg.boxId);

    // host (a): a raw copy of the chain
    const raw = join(work, 'view.raw');
    await timed('host raw copy: qemu-img convert', () => run('qemu-img', ['convert', '-U', '-O', 'raw', disk, raw]));
    await timed('host raw copy: e2fsck journal replay', () => run('e2fsck', ['-E', 'journal_only', '-p', raw]));
    const out = await timed('host raw copy: debugfs cat', () => run('debugfs', ['-R', 'cat /root/kept.txt', raw]));
    if (out !== CONTENT) throw new Error(`debugfs read ${JSON.stringify(out)}`);
    rmSync(raw);

    // host (b): a FUSE raw view of the chain (writable: writes would land in the overlay)
    const mnt = join(work, 'fuse.raw');
    writeFileSync(mnt, '');
    const t1 = performance.now();
    const qsd = spawn(
      'qemu-storage-daemon',
      [
        '--blockdev',
        `driver=file,node-name=f,filename=${disk}`,
        '--blockdev',
        'driver=qcow2,node-name=q,file=f',
        '--export',
        `type=fuse,id=e,node-name=q,mountpoint=${mnt},writable=on`,
      ],
      { stdio: 'ignore' },
    );
    for (let k = 0; k < 500; k++) {
      if (run('stat', ['-c', '%s', mnt]).trim() !== '0') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    rec('host FUSE view: qemu-storage-daemon up', performance.now() - t1);
    await timed('host FUSE view: e2fsck journal replay', () => run('e2fsck', ['-E', 'journal_only', '-p', mnt]));
    const out2 = await timed('host FUSE view: debugfs cat', () => run('debugfs', ['-R', 'cat /root/kept.txt', mnt]));
    if (out2 !== CONTENT) throw new Error(`debugfs (FUSE) read ${JSON.stringify(out2)}`);
    qsd.kill('SIGTERM');
    await new Promise((r) => qsd.once('exit', r));
    rmSync(mnt, { force: true });
  }
} finally {
  await rt.destroy(cfg.boxId).catch(() => {});
  await rt.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, ${runs} runs, ${new Date().toISOString()}`,
);
console.log('| step | median ms | runs |\n| --- | --- | --- |');
for (const [k, v] of Object.entries(rows)) console.log(`| ${k} | ${median(v).toFixed(0)} | ${v.map((x) => x.toFixed(0)).join(', ')} |`);
