/**
 * Restore spares with real microVMs (TCG here): a resume from sleep and a fork's child
 * are loaded into a QEMU started ahead for the template (restore-spares.ts). The box gets
 * its own disk (writes land in its overlay; the placeholder's went with the spare), its memory,
 * its proxy and published ports, its console history; the runtime recognises the VM as
 * the box's (and a new runtime adopts it); a box with shared folders restores its own QEMU.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TemplateShape, VmConfig } from '../../boxes/runtime-port.js';
import { boxFolder, livePid, readState } from '../box-folder.js';
import { QemuBoxRuntime } from '../qemu-box-runtime.js';
import type { RestoreSpares } from './restore-spares.js';
import { freePort, readPublished, shIn, vmTestFixture } from '../test-support/vm-image.js';

const VM_TIMEOUT = 600_000;
const shape: TemplateShape = { image: 'debian', vcpus: 1, memoryMib: 256, diskGib: 2 };
const fx = vmTestFixture('/tmp/bxspare-', 'proxy-of-s1\n');

const sh = shIn;
const cfg = (boxId: string, over: Partial<VmConfig> = {}): VmConfig => ({ boxId, hostname: boxId, ...shape, mounts: [], forwards: [], ...over });
const spares = (rt: QemuBoxRuntime) => (rt as unknown as { clones: { spares: RestoreSpares } }).clones.spares;
/** The spare is ready (started in the background after a create or a take). */
async function spareReady(rt: QemuBoxRuntime) {
  for (let i = 0; i < 200 && ![...spares(rt).readyCounts().values()].some((n) => n > 0); i++) await new Promise((r) => setTimeout(r, 50));
  await spares(rt).settled();
  expect([...spares(rt).readyCounts().values()]).toEqual([1]);
}
const bySpare = async (id: string) => (await readState(boxFolder(fx.dataDir, id)))?.launchDir?.includes('/spares/') ?? false;
const allocated = (disk: string) => fs.statSync(disk).blocks;

describe('restore spares', () => {
  it(
    'a resume and a fork load into a spare QEMU: own disk, memory, proxy, ports and console; a new runtime adopts them',
    async () => {
      const rt = new QemuBoxRuntime(fx.dataDir, { templates: true, warmPool: 0, restoreSpares: 1 });
      const hostPort = await freePort();
      const s1 = cfg('s1', { forwards: [{ hostPort, guestPort: 8080 }], proxyPort: fx.proxy.port });
      try {
        await rt.create(s1);
        expect(await bySpare('s1')).toBe(false); // the first restore of the template starts its own
        await sh(rt, 's1', 'echo on-disk > /root/d; echo in-memory > /dev/shm/m; echo "<1>console-before" > /dev/kmsg; sync');
        await spareReady(rt);
        expect((await rt.templates.list()).map((t) => t.restoreSpares)).toEqual([1]); // GET /v1/templates restore_spares
        const spareDir = fs.readdirSync(`${fx.dataDir}/spares`)[0]!;

        await rt.save('s1');
        await rt.restore(s1);
        expect(await bySpare('s1')).toBe(true);
        expect(fs.existsSync(`${fx.dataDir}/spares/${spareDir}`)).toBe(false); // moved into the box's folder
        const folder = boxFolder(fx.dataDir, 's1');
        expect(livePid(folder)).toBeGreaterThan(0);
        expect(await rt.isAlive('s1')).toBe(true);
        expect(await sh(rt, 's1', 'cat /root/d /dev/shm/m; hostname')).toBe('on-disk\nin-memory\ns1\n');
        // its disk is the box's own overlay: new writes land there
        const before = allocated(folder.disk);
        await sh(rt, 's1', 'head -c 3000000 /dev/urandom > /root/big; sync');
        expect(allocated(folder.disk)).toBeGreaterThan(before);
        // the box's proxy (guest 10.0.2.100:3128 reaches it through the spare's port file) and ports
        expect(await sh(rt, 's1', 'exec 3<>/dev/tcp/10.0.2.100/3128; cat <&3')).toBe('proxy-of-s1\n');
        const serve =
          "import socket;s=socket.socket();s.setsockopt(1,2,1);s.bind(('0.0.0.0',8080));s.listen(1);c,_=s.accept();c.sendall(b'from-guest');c.close()";
        void sh(rt, 's1', `timeout 60 python3 -c "${serve}"`).catch(() => {});
        expect(await readPublished(hostPort)).toContain('from-guest');
        // the console history is kept; the guest keeps writing to it
        await sh(rt, 's1', 'echo "<1>console-after" > /dev/kmsg');
        const log = fs.readFileSync(folder.serialLog, 'utf8');
        expect(log).toContain('console-before');
        expect(log).toContain('console-after');

        // a fork's child: the next spare
        await spareReady(rt);
        await rt.checkpoint('s1', 'cp1', true);
        await rt.cloneFromCheckpoint('cp1', cfg('s2'));
        expect(await bySpare('s2')).toBe(true);
        expect(await sh(rt, 's2', 'cat /root/d /dev/shm/m; hostname; sha256sum /root/big | cut -c1-16')).toBe(
          `on-disk\nin-memory\ns2\n${await sh(rt, 's1', 'sha256sum /root/big | cut -c1-16')}`,
        );
      } finally {
        await rt.close();
      }
      // a new runtime (a service restart) adopts both: the command line names the spare's folder
      const rt2 = new QemuBoxRuntime(fx.dataDir, { templates: true, warmPool: 0, restoreSpares: 0 });
      try {
        expect((await rt2.adopt(s1)).adopted).toBe(true);
        expect((await rt2.adopt(cfg('s2'))).adopted).toBe(true);
        expect(await sh(rt2, 's2', 'cat /dev/shm/m')).toBe('in-memory\n');
        expect(fs.readdirSync(`${fx.dataDir}/spares`)).toEqual([]); // rt.close() ended the unused spare
      } finally {
        for (const id of ['s1', 's2']) await rt2.destroy(id).catch(() => {});
        await rt2.close();
      }
    },
    VM_TIMEOUT,
  );

  it(
    'a box with a shared folder restores its own QEMU',
    async () => {
      const rt = new QemuBoxRuntime(fx.dataDir, { templates: true, warmPool: 0, restoreSpares: 1 });
      const share = fs.mkdtempSync('/tmp/bxspare-share-');
      fs.writeFileSync(`${share}/f`, 'shared\n');
      const v1 = cfg('v1', { mounts: [{ tag: 'v', hostPath: share, guestPath: '/mnt/v' }] });
      try {
        await rt.create(v1);
        await spareReady(rt);
        await rt.save('v1');
        await rt.restore(v1);
        expect(await bySpare('v1')).toBe(false);
        expect([...spares(rt).readyCounts().values()]).toEqual([1]); // still there for others
        expect(await sh(rt, 'v1', 'cat /mnt/v/f')).toBe('shared\n');
      } finally {
        await rt.destroy('v1').catch(() => {});
        await rt.close();
        fs.rmSync(share, { recursive: true, force: true });
      }
    },
    VM_TIMEOUT,
  );
});
