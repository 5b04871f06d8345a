/**
 * A template clone's saved state holds only the pages it changed (box-ramdelta), with real
 * microVMs (TCG here):
 *  - on a real QEMU stream, the filtered stream rebuilds byte-for-byte the same guest
 *    memory as the whole one (box-ramdelta apply), with the same device state, in a
 *    fraction of the size; so does the composed one (device state alone from QEMU, the
 *    pages the box wrote read from its memory: box-ramdelta compose);
 *  - sleep and resume of a clone keep its memory exactly (a RAM-only file survives), the
 *    saved state is small, and the resumed clone still shares the template's pages.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateShape } from '../../boxes/runtime-port.js';
import { ensureRamDelta } from '../guest-image/agent-build.js';
import { waitForAgent } from '../agent-wait.js';
import { execText } from '../exec-text.js';
import { boxFolder, livePid, readState } from '../box-folder.js';
import { MachineSource } from './machine-source.js';
import { QemuBoxRuntime } from '../qemu-box-runtime.js';
import { cloneTemplateFolder } from './template-clone.js';
import { restoreVm } from '../qemu/vm-snapshot.js';
import { killVm, quitVm } from '../qemu/vm.js';
import { agentOf, testImageCache } from '../test-support/vm-image.js';

const VM_TIMEOUT = 600_000;
const shape: TemplateShape = { image: 'debian', vcpus: 1, memoryMib: 256, diskGib: 2 };
let dataDir: string;

beforeAll(() => {
  testImageCache();
  dataDir = fs.mkdtempSync('/tmp/bxdelta-');
});
afterAll(async () => {
  for (const id of ['s1', 'r1']) await killVm(boxFolder(dataDir, id)).catch(() => {});
  fs.rmSync(dataDir, { recursive: true, force: true });
}, VM_TIMEOUT);

const pssKiB = (pid: number) => Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]);
/** The runtime's own agent connection (the port's GuestAgent has no text helper). */
const client = agentOf;
const RANDOM_FILE = 'head -c 3000000 /dev/urandom > /dev/shm/r && sha256sum /dev/shm/r';

describe('template clone saved state', () => {
  it(
    'the filtered stream of a real save rebuilds the same memory and device state',
    async () => {
      const filter = await ensureRamDelta();
      expect(filter).toBeDefined();
      const src = new MachineSource(dataDir);
      const base = await src.vmConfig({ boxId: 'x', hostname: 'box', ...shape, mounts: [], forwards: [] });
      const tpl = await src.store.ensure(shape, base, (await src.image()).recipeHash);
      const folder = boxFolder(dataDir, 's1');
      await cloneTemplateFolder(tpl, folder, { hostname: 's1' });
      const handle = await restoreVm(folder);
      const agent = await waitForAgent(folder, { afterRestore: true });
      expect((await execText(agent, RANDOM_FILE)).exitCode).toBe(0);
      agent.close();
      // the whole stream, as QEMU writes it without the filter
      const full = path.join(dataDir, 'full.bin');
      await handle.qmp.execute('stop');
      // the fast save of the same stopped VM: device state alone + the pages read from QEMU
      const devices = path.join(dataDir, 'devices-only.bin');
      const composed = path.join(dataDir, 'composed.bin');
      await handle.qmp.execute('xen-save-devices-state', { filename: devices, live: false });
      const tplStream = path.join(path.dirname(tpl.folder.ram), 'devices.bin');
      execFileSync(filter!, ['compose', tpl.folder.ram, 'mem', tplStream, devices, String(handle.pid), composed], { stdio: ['ignore', 'ignore', 'pipe'] });
      await handle.qmp.execute('migrate-set-capabilities', { capabilities: [{ capability: 'x-ignore-shared', state: true }] });
      await handle.qmp.execute('migrate', { uri: `exec:cat > ${full}` });
      for (;;) {
        const { status } = await handle.qmp.execute<{ status: string }>('query-migrate');
        if (status === 'completed') break;
        expect(['active', 'setup', 'device']).toContain(status);
        await new Promise((r) => setTimeout(r, 10));
      }
      await quitVm(handle);

      const delta = path.join(dataDir, 'delta.bin');
      execFileSync(filter!, ['filter', tpl.folder.ram, 'mem', delta], { input: fs.readFileSync(full), stdio: ['pipe', 'ignore', 'pipe'] });
      const apply = (stream: string, image: string) =>
        JSON.parse(execFileSync(filter!, ['apply', tpl.folder.ram, 'mem', stream, image], { encoding: 'utf8' })) as { tail_offset: number; tail_bytes: number };
      const a = apply(full, path.join(dataDir, 'img.full'));
      const b = apply(delta, path.join(dataDir, 'img.delta'));
      const c = apply(composed, path.join(dataDir, 'img.composed'));
      expect(fs.readFileSync(path.join(dataDir, 'img.delta')).equals(fs.readFileSync(path.join(dataDir, 'img.full')))).toBe(true);
      expect(fs.readFileSync(path.join(dataDir, 'img.composed')).equals(fs.readFileSync(path.join(dataDir, 'img.full')))).toBe(true);
      expect(c.tail_bytes).toBeGreaterThan(1000); // the VM's own device state ends the composed stream
      expect(fs.statSync(composed).size).toBeLessThan(fs.statSync(delta).size * 1.1);
      // the guest's changes are in there: the image differs from the template
      expect(fs.readFileSync(path.join(dataDir, 'img.full')).equals(fs.readFileSync(tpl.folder.ram))).toBe(false);
      expect(a.tail_bytes).toBe(b.tail_bytes);
      expect(a.tail_bytes).toBeGreaterThan(1000);
      const tail = (p: string, t: { tail_offset: number }) => fs.readFileSync(p).subarray(t.tail_offset);
      expect(tail(delta, b).equals(tail(full, a))).toBe(true);
      const [fullSize, deltaSize] = [fs.statSync(full).size, fs.statSync(delta).size];
      expect(deltaSize).toBeLessThan(fullSize / 4);
      expect(deltaSize).toBeGreaterThan(3_000_000); // the random file's pages are kept
    },
    VM_TIMEOUT,
  );

  it(
    'sleep and resume of a clone keep its memory, save only its changes and keep sharing the template',
    async () => {
      const rt = new QemuBoxRuntime(dataDir, { templates: true });
      const cfg = { boxId: 'r1', hostname: 'r1', ...shape, mounts: [], forwards: [] };
      try {
        await rt.create(cfg);
        const folder = boxFolder(dataDir, 'r1');
        const before = await execText(client(rt, 'r1'), RANDOM_FILE);
        expect(before.exitCode).toBe(0);
        const pid = livePid(folder)!;
        const pssBefore = pssKiB(pid);
        // the fast save reads QEMU's memory where this user may (ptrace rules: Yama scope 1
        // forbids it for a QEMU that is not a descendant); elsewhere a migration does it
        const readable = (() => {
          try {
            fs.closeSync(fs.openSync(`/proc/${pid}/mem`, 'r'));
            return true;
          } catch {
            return false;
          }
        })();
        await rt.save('r1');
        expect((await readState(folder))!.savedWith).toBe(readable ? 'compose' : 'migration');
        const saved = fs.statSync(folder.devices).size;
        expect(saved).toBeLessThan(16 * 2 ** 20);
        await rt.restore(cfg);
        const after = await execText(client(rt, 'r1'), 'sha256sum /dev/shm/r');
        expect(after.stdout).toBe(before.stdout);
        // a restore that wrote every template page privately would add the template's ~40+ MiB
        expect(pssKiB(livePid(folder)!)).toBeLessThan(pssBefore + 16 * 1024);
        // the migration path (the fallback) keeps it too
        process.env.BOX_SAVE_COMPOSE = '0';
        try {
          await rt.save('r1');
        } finally {
          delete process.env.BOX_SAVE_COMPOSE;
        }
        expect((await readState(folder))!.savedWith).toBe('migration');
        await rt.restore(cfg);
        expect((await execText(client(rt, 'r1'), 'sha256sum /dev/shm/r')).stdout).toBe(before.stdout);
      } finally {
        await rt.destroy('r1').catch(() => {});
        await rt.close();
      }
    },
    VM_TIMEOUT,
  );
});
