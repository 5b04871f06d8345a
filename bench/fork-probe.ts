/**
 * `npx tsx bench/fork-probe.ts [--runs 5]`: where a fork's time goes, on the runtime layer
 * (no HTTP): the source's in-place checkpoint (stop, save, disk copy, cont), the child's
 * folder, its restore, its agent connection and identity, its first exec.
 * `--phases --tcg`: the child's identity and first exec cold (fresh QEMU, nothing
 * translated), then again warm: how much of a fork is TCG translation (BENCHMARKS.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import os, { tmpdir } from 'node:os';
import type { TemplateShape, VmConfig } from '../src-server/areas/boxes/runtime-port.js';
import { AgentClient } from '../src-server/platform/guest/agent-client.js';
import { randomBytes } from 'node:crypto';
import { execText } from '../src-server/areas/runtime/exec-text.js';
import { QemuBoxRuntime } from '../src-server/areas/runtime/qemu-box-runtime.js';
import { agentOf, testImageCache } from '../src-server/areas/runtime/test-support/vm-image.js';
import { boxFolder, readState } from '../src-server/areas/runtime/box-folder.js';
import { cloneFolder } from '../src-server/areas/runtime/qemu/checkpoints.js';
import { applyIdentity } from '../src-server/areas/runtime/templates/template-clone.js';
import { restoreVm } from '../src-server/areas/runtime/qemu/vm-snapshot.js';
import type { RestoreSpares } from '../src-server/areas/runtime/templates/restore-spares.js';
import { qemuCpuMs } from './runtime-support.js';

const argv = process.argv.slice(2);
const runs = Number(argv[argv.indexOf('--runs') + 1]) || 5;
const shape: TemplateShape = { image: 'debian', vcpus: 1, memoryMib: 512, diskGib: 2 };
testImageCache();
const dataDir = mkdtempSync(join(tmpdir(), 'bxfork-'));
const rt = new QemuBoxRuntime(dataDir, { templates: true, warmPool: 0 });
const cfg = (boxId: string): VmConfig => ({ boxId, hostname: boxId, ...shape, mounts: [], forwards: [], files: [] });
const client = (id: string) => agentOf(rt, id);
const rows: Record<string, number[]> = {};
const rec = (k: string, v: number) => (rows[k] ??= []).push(v);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const now = () => performance.now();

await rt.create(cfg('src'));
for (let i = 0; i < 5; i++) await execText(client('src'), ['/bin/true']);
for (let i = 0; i < runs; i++) {
  await execText(client('src'), ['/bin/sh', '-c', `echo ${i} > /tmp/run; head -c 4000000 /dev/urandom > /tmp/junk`]);
  await (rt as unknown as { clones: { spares: RestoreSpares } }).clones.spares.settled();
  await new Promise((r) => setTimeout(r, 200));
  let t = now();
  await rt.checkpoint('src', `cp${i}`, true);
  rec('source checkpoint (in place)', now() - t);
  t = now();
  if (argv.includes('--phases')) {
    // cloneFromCheckpoint's steps, timed one by one
    const id = `f${i}`;
    const folder = boxFolder(dataDir, id);
    const internals = rt as unknown as { handles: Map<string, unknown>; conns: { connect(id: string, f: unknown, k: string, i: unknown): Promise<void> } };
    await cloneFolder(join(dataDir, 'checkpoints', `cp${i}`), folder);
    rec('child: folder', now() - t);
    let u = now();
    internals.handles.set(id, await restoreVm(folder, { hostname: id }, (rt as unknown as { clones: { spares: RestoreSpares } }).clones.spares));
    rec('child: restoreVm', now() - u);
    u = now();
    if (argv.includes('--tcg')) {
      // The TCG floor: the child's QEMU starts with no translated code. Its identity (the
      // agent's HELLO, clock, reseed and two file writes) and its first exec run once cold,
      // then again warm in the same QEMU: the difference is translation (and the TLB and
      // caches it misses). `info jit` counts the blocks translated; the vCPU's CPU time
      // (all of QEMU's threads) is load-independent work.
      const h = () => internals.handles.get(id) as { pid: number; qmp: { execute<T>(c: string, a?: object): Promise<T> } };
      const tbs = async () =>
        Number(/TB count\s+(\d+)/.exec(await h().qmp.execute<string>('human-monitor-command', { 'command-line': 'info jit' }))?.[1] ?? NaN);
      const step = async (name: string, run: () => Promise<unknown>) => {
        const [tb0, cpu0, w0] = [await tbs(), qemuCpuMs(h().pid), now()];
        await run();
        rec(`${name} ms`, now() - w0);
        rec(`${name} QEMU CPU ms`, qemuCpuMs(h().pid) - cpu0);
        rec(`${name} blocks translated`, (await tbs()) - tb0);
      };
      const identity = (c: AgentClient) => Promise.all([c.syncTime(), applyIdentity(c, id)]);
      await step('tcg: agent HELLO + identity, cold', () => internals.conns.connect(id, folder, 'clone', identity));
      await step('tcg: identity again, warm', () => identity(client(id)));
      await step('tcg: first exec, cold', () => execText(client(id), ['/bin/cat', '/tmp/run']));
      await step('tcg: exec again, warm', () => execText(client(id), ['/bin/cat', '/tmp/run']));
    } else if (argv.includes('--split')) {
      const c = await AgentClient.connect(folder.agentSock, { timeoutMs: 60_000, helloRetryMs: 200 });
      rec('child: HELLO', now() - u);
      u = now();
      await Promise.all([c.syncTime(), c.reseed(randomBytes(64), id)]);
      rec('child: clock + reseed with hostname', now() - u);
      u = now();
      const opts = { mode: 0o644, createParents: false, durable: false, inPlace: !argv.includes('--replace') };
      await c.writeFile('/etc/hostname', opts, Buffer.from(`${id}\n`));
      rec('child: write /etc/hostname', now() - u);
      u = now();
      await c.writeFile('/etc/machine-id', opts, Buffer.from(`${randomBytes(16).toString('hex')}\n`));
      rec('child: write /etc/machine-id', now() - u);
      c.close();
      await internals.conns.connect(id, folder, 'clone', undefined);
    } else {
      await internals.conns.connect(id, folder, 'clone', (c: AgentClient) => applyIdentity(c, id));
      rec('child: agent connect with identity', now() - u);
    }
  } else await rt.cloneFromCheckpoint(`cp${i}`, cfg(`f${i}`));
  rec('child clone+restore+identity', now() - t);
  if ((await readState(boxFolder(dataDir, `f${i}`)))?.launchDir?.includes('/spares/')) rec('children restored by a spare QEMU', 1);
  t = now();
  const out = (await execText(client(`f${i}`), ['/bin/cat', '/tmp/run'])).stdout;
  rec('child first exec', now() - t);
  if (out.trim() !== String(i)) throw new Error(`child saw ${out}`);
  await rt.destroy(`f${i}`);
  await rt.deleteCheckpoint(`cp${i}`);
}
await rt.destroy('src');
await rt.close();
rmSync(dataDir, { recursive: true, force: true });
const out: Record<string, string> = {};
for (const [k, v] of Object.entries(rows))
  out[k] = k.startsWith('children')
    ? `${v.length} of ${runs}`
    : `${med(v).toFixed(1)}${/(ms|translated)$/.test(k) ? '' : ' ms'} (${v.map((x) => x.toFixed(0)).join(' ')})`;
out.load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
console.log(JSON.stringify(out, null, 2));
