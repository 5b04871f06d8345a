/**
 * `npx tsx bench/runtime-boot.ts [--runs 5] [--cold]`: boot and snapshot timings of box
 * VMs, medians over runs. Bare boot = QEMU started directly (no daemonize, no runtime)
 * with the same kernel, initrd and disk, until the agent answers HELLO; the other rows go
 * through src-server/areas/runtime. --cold also times an image build into an empty cache.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../src-server/platform/guest/agent-client.js';
import { waitForAgent } from '../src-server/areas/runtime/agent-wait.js';
import { BoxFolder, boxFolder, createOverlay } from '../src-server/areas/runtime/box-folder.js';
import { ensureGuestImage } from '../src-server/areas/runtime/guest-image/guest-image.js';
import { QEMU_BINARY } from '../src-server/areas/runtime/qemu/host.js';
import { testConfig, testImageCache } from '../src-server/areas/runtime/test-support/vm-image.js';
import { killVm, launchVm } from '../src-server/areas/runtime/qemu/vm.js';
import { checkpointFolder, cloneFolder } from '../src-server/areas/runtime/qemu/checkpoints.js';
import { restoreVm, saveAndStop } from '../src-server/areas/runtime/qemu/vm-snapshot.js';
import { qemuArgs } from '../src-server/areas/runtime/qemu/vm-config.js';

const argv = process.argv.slice(2);
const runs = Number(argv[argv.indexOf('--runs') + 1]) || 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results: Record<string, number[]> = {};
const record = (k: string, v: number) => (results[k] ??= []).push(v);
const now = () => performance.now();

testImageCache();
const dataDir = mkdtempSync(join(tmpdir(), 'boxbench-'));

if (argv.includes('--cold')) {
  const saved = process.env.BOX_IMAGE_CACHE;
  process.env.BOX_IMAGE_CACHE = mkdtempSync(join(tmpdir(), 'boxbench-cache-'));
  const t = now();
  await ensureGuestImage({ dataDir });
  record('image build, cold (ms)', now() - t);
  rmSync(process.env.BOX_IMAGE_CACHE, { recursive: true, force: true });
  process.env.BOX_IMAGE_CACHE = saved;
}
const image = await ensureGuestImage({ dataDir });
for (let i = 0; i < runs; i++) {
  const t = now();
  await ensureGuestImage({ dataDir });
  record('image build, warm/cached (ms)', now() - t);
}
const config = testConfig(image);

async function bareBoot(folder: BoxFolder): Promise<number> {
  await createOverlay(folder.disk, image.rootfs, 'raw', config.diskGib);
  const args = qemuArgs(folder, config).filter((a) => a !== '-daemonize');
  const t = now();
  const child = spawn(QEMU_BINARY, args, { stdio: 'ignore' });
  const agent = await AgentClient.connect(folder.agentSock, { timeoutMs: 60_000, helloRetryMs: 100 });
  const ms = now() - t;
  agent.close();
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  return ms;
}

for (let i = 0; i < runs; i++) {
  const bare = boxFolder(dataDir, `bare${i}`);
  await import('node:fs/promises').then((fs) => fs.mkdir(bare.dir, { recursive: true }));
  record('bare QEMU boot to agent HELLO (ms)', await bareBoot(bare));

  const f = boxFolder(dataDir, `b${i}`);
  let t = now();
  let vm = await launchVm(f, config);
  let agent = await waitForAgent(f, { timeoutMs: 60_000 });
  record('launchVm to agent ready (ms)', now() - t);

  if (i === 0) {
    await new Promise((r) => setTimeout(r, 10_000));
    const rollup = readFileSync(`/proc/${vm.pid}/smaps_rollup`, 'utf8');
    record('idle PSS after 10 s (MiB)', Number(/^Pss:\s+(\d+)/m.exec(rollup)![1]) / 1024);
    record('idle RSS after 10 s (MiB)', Number(/^Rss:\s+(\d+)/m.exec(rollup)![1]) / 1024);
  }
  agent.close();
  record('saveAndStop (ms)', (await saveAndStop(vm)).ms);

  t = now();
  vm = await restoreVm(f);
  agent = await waitForAgent(f, { timeoutMs: 30_000, afterRestore: true });
  record('restoreVm to agent answering, incl. time sync + reseed (ms)', now() - t);
  agent.close();
  await saveAndStop(vm);

  t = now();
  await checkpointFolder(f, f.checkpoint('c'));
  record('checkpoint of a saved box (ms)', now() - t);
  const g = boxFolder(dataDir, `c${i}`);
  t = now();
  await cloneFolder(f.checkpoint('c'), g);
  record('cloneFolder (sparse RAM copy + overlay) (ms)', now() - t);
  const vm2 = await restoreVm(g);
  const a2 = await waitForAgent(g, { timeoutMs: 30_000, afterRestore: true });
  record('clone + restore to agent answering (ms)', now() - t);
  a2.close();
  await killVm(vm2);
}

const table = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Math.round(median(v) * 10) / 10]));
console.log(JSON.stringify({ runs, medians: table, samples: results }, null, 2));
rmSync(dataDir, { recursive: true, force: true });
