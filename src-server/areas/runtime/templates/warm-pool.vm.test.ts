/**
 * The warm pool with real microVMs (TCG here): a create takes a restored, warmed clone
 * (its folder renamed into place), gives it the box's identity, reaches the box's egress
 * proxy through the port file and publishes its ports; the box then sleeps and wakes like
 * any other; no pool VM outlives the runtime, and removing the template drains its pool.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TemplateShape, VmConfig } from '../../boxes/runtime-port.js';
import { boxFolder, livePid, readState } from '../box-folder.js';
import { QemuBoxRuntime } from '../qemu-box-runtime.js';
import { freePort, readPublished, shIn, vmTestFixture } from '../test-support/vm-image.js';

const VM_TIMEOUT = 600_000;
const shape: TemplateShape = { image: 'debian', vcpus: 1, memoryMib: 256, diskGib: 2 };
const fx = vmTestFixture('/tmp/bxpool-', 'proxy-of-w1\n');

const sh = shIn;
const cfg = (boxId: string, over: Partial<VmConfig> = {}): VmConfig => ({ boxId, hostname: boxId, ...shape, mounts: [], forwards: [], ...over });
const poolVms = () => (fs.existsSync(`${fx.dataDir}/pool`) ? fs.readdirSync(`${fx.dataDir}/pool`) : []);

describe('warm pool', () => {
  it(
    'a create takes a warmed clone: own identity, the box proxy, published ports; it sleeps and wakes',
    async () => {
      const rt = new QemuBoxRuntime(fx.dataDir, { templates: true, warmPool: 1 });
      const pool = (rt as unknown as { clones: { pool: { settled(): Promise<void> } } }).clones.pool;
      try {
        await rt.templates.prepare(shape);
        await pool.settled();
        const [tpl] = await rt.templates.list();
        expect(tpl!.warmClones).toBe(1);
        const pooledDir = poolVms()[0]!;

        const hostPort = await freePort();
        await rt.create(cfg('w1', { proxyPort: fx.proxy.port, forwards: [{ hostPort, guestPort: 8080 }] }));
        const folder = boxFolder(fx.dataDir, 'w1');
        expect((await readState(folder))!.launchDir).toContain(pooledDir); // it was the pooled VM
        expect(livePid(folder)).toBeGreaterThan(0);
        expect(await sh(rt, 'w1', 'hostname; cat /etc/hostname')).toBe('w1\nw1\n');
        // the guest's proxy address reaches this box's proxy (the port file)
        expect(await sh(rt, 'w1', 'exec 3<>/dev/tcp/10.0.2.100/3128 && cat <&3')).toBe('proxy-of-w1\n');
        // the published port reaches the guest
        const serve =
          "import socket;s=socket.socket();s.setsockopt(1,2,1);s.bind(('0.0.0.0',8080));s.listen(1);c,_=s.accept();c.sendall(b'from-guest');c.close()";
        void sh(rt, 'w1', `timeout 60 python3 -c "${serve}"`).catch(() => {});
        const got = await readPublished(hostPort);
        expect(got).toContain('from-guest');

        // a second create right away: from the pool if it refilled, else restored; both unique
        await rt.create(cfg('w2'));
        const ids = [await sh(rt, 'w1', 'cat /etc/machine-id'), await sh(rt, 'w2', 'cat /etc/machine-id')];
        expect(ids[0]).not.toBe(ids[1]);

        // sleep and wake: a later QEMU names the proxy port directly
        await sh(rt, 'w1', 'echo kept > /root/f');
        await rt.save('w1');
        await rt.restore(cfg('w1', { proxyPort: fx.proxy.port, forwards: [] }));
        expect(await sh(rt, 'w1', 'cat /root/f; exec 3<>/dev/tcp/10.0.2.100/3128 && cat <&3')).toBe('kept\nproxy-of-w1\n');

        await rt.destroy('w1');
        await rt.destroy('w2');
        // the refill starts 750 ms after the last create (fillSoon): wait for it, then for it to finish
        for (let i = 0; i < 100 && !poolVms().length; i++) await new Promise((r) => setTimeout(r, 50));
        await pool.settled();
        // removing the template drains its pool first
        expect(poolVms().length).toBeGreaterThan(0);
        expect(await rt.templates.remove(tpl!.templateId)).toBe('removed');
        expect(poolVms()).toEqual([]);
      } finally {
        await rt.close();
      }
    },
    VM_TIMEOUT,
  );

  it(
    'no pool VM outlives the runtime, and a new runtime clears what a killed one left',
    async () => {
      const rt = new QemuBoxRuntime(fx.dataDir, { templates: true, warmPool: 1 });
      const pool = (rt as unknown as { clones: { pool: { settled(): Promise<void> } } }).clones.pool;
      await rt.templates.prepare(shape);
      await pool.settled();
      const left = poolVms();
      expect(left.length).toBe(1);
      const pid = Number(fs.readFileSync(`${fx.dataDir}/pool/${left[0]}/qemu.pid`, 'utf8'));
      // a killed service: nothing closes the pool
      const next = new QemuBoxRuntime(fx.dataDir, { templates: true, warmPool: 0 });
      await (next as unknown as { clones: { cleared: Promise<void> } }).clones.cleared;
      expect(poolVms()).toEqual([]);
      expect(fs.existsSync(`/proc/${pid}`) && !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z')).toBe(false);
      await next.close();
      await rt.close();
    },
    VM_TIMEOUT,
  );
});
