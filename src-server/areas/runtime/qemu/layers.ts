/**
 * Disk layers: a checkpoint freezes a box's qcow2 overlay; boxes made from it (and later
 * checkpoints) build on it as a backing file. A frozen layer may only be deleted once no
 * disk in the data dir has it in its backing chain.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

async function backingChain(disk: string): Promise<string[]> {
  const { stdout } = await execFileP('qemu-img', ['info', '-U', '--backing-chain', '--output=json', disk]);
  return (JSON.parse(stdout) as { filename: string }[]).slice(1).map((i) => resolve(i.filename));
}

/** Every file that is a backing layer of some box disk or checkpoint disk. */
export async function collectLayers(dataDir: string): Promise<Set<string>> {
  const disks: string[] = [];
  for (const sub of ['boxes', 'checkpoints']) {
    const root = join(dataDir, sub);
    if (!existsSync(root)) continue;
    for (const d of readdirSync(root)) {
      const f = join(root, d, 'disk.qcow2');
      if (existsSync(f)) disks.push(f);
    }
  }
  const used = new Set<string>();
  for (const d of disks) for (const b of await backingChain(d).catch(() => [])) used.add(b);
  return used;
}

export async function deleteCheckpointDir(dir: string, inUse: Set<string>): Promise<void> {
  const disk = resolve(join(dir, 'disk.qcow2'));
  if (!existsSync(dir)) return;
  if (!inUse.has(disk)) {
    await rm(dir, { recursive: true, force: true });
    return;
  }
  for (const f of ['ram', 'devices.bin', 'meta.json']) await rm(join(dir, f), { force: true });
}

/** Bytes a directory really occupies (sparse RAM files count only their written blocks). */
export function dirSizeBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) {
    const st = statSync(join(dir, f));
    n += st.isDirectory() ? dirSizeBytes(join(dir, f)) : st.blocks * 512;
  }
  return n;
}

/** Checkpoint garbage collection: removes the frozen layers of deleted checkpoints (no meta.json) once nothing builds on them. */
export async function collectCheckpointGarbage(dataDir: string): Promise<void> {
  const root = join(dataDir, 'checkpoints');
  if (!existsSync(root)) return;
  const inUse = await collectLayers(dataDir);
  for (const id of readdirSync(root)) {
    if (!existsSync(join(root, id, 'meta.json'))) await deleteCheckpointDir(join(root, id), inUse);
  }
}
