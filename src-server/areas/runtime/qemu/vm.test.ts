/**
 * Real-VM tests (TCG on CI): two VMs in all — a parent that is booted, saved, restored,
 * checkpointed live and killed, and one clone of its checkpoint.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClient } from '../../../platform/guest/agent-client.js';
import { waitForAgent } from '../agent-wait.js';
import { execText } from '../exec-text.js';
import { boxFolder, hasSavedState, isAlive, probeQmp, readState } from '../box-folder.js';
import type { GuestImage } from '../guest-image/guest-image.js';
import { testConfig, testDataDir, testImage } from '../test-support/vm-image.js';
import { attachVm, killVm, launchVm, type VmHandle } from './vm.js';
import { checkpointVm, cloneFolder } from './checkpoints.js';
import { restoreRanBefore, restoreVm, saveAndStop } from './vm-snapshot.js';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('box VMs (real QEMU)', () => {
  let dataDir: string;
  let image: GuestImage;
  let proxy: Server;
  let proxyPort: number;
  let hostPort: number;
  let share: string;
  const parent = () => boxFolder(dataDir, 'parent');
  const clone = () => boxFolder(dataDir, 'clone');
  let vm: VmHandle | undefined;
  let vm2: VmHandle | undefined;
  let agent: AgentClient | undefined;

  beforeAll(async () => {
    dataDir = testDataDir();
    image = await testImage(dataDir);
    // Stands in for the egress proxy: answers every connection with a fixed HTTP reply.
    proxy = createServer((sock) => {
      sock.once('data', () => sock.end('HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nviaproxy'));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyPort = (proxy.address() as { port: number }).port;
    hostPort = await freePort();
    share = join(dataDir, 'share');
    mkdirSync(share);
    writeFileSync(join(share, 'hello.txt'), 'from-host');
  });

  afterAll(async () => {
    agent?.close();
    for (const f of [parent(), clone()]) if (isAlive(f)) await killVm(f);
    proxy?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('boots to the agent, with the proxy, a published port and a 9p share', async () => {
    vm = await launchVm(
      parent(),
      testConfig(image, { proxyPort, ports: [{ hostPort, guestPort: 8080 }], mounts: [{ hostPath: share, guestPath: '/mnt/share' }] }),
    );
    agent = await waitForAgent(parent(), { timeoutMs: 60_000 });
    expect(agent.info?.init).toBe(true);
    // started through box-qemu-launch: no transparent huge pages (kernels since 5.0 say so in status)
    if (/^THP_enabled:/m.test(readFileSync('/proc/self/status', 'utf8'))) {
      expect(readFileSync(`/proc/${vm.pid}/status`, 'utf8')).toMatch(/^THP_enabled:\s+0$/m);
    }

    const r = await execText(agent, 'cat /mnt/share/hello.txt; echo; curl -s http://10.0.2.100:3128/; echo; df -k / | tail -1');
    const [shared, viaProxy, df] = r.stdout.trim().split('\n');
    expect(shared).toBe('from-host');
    expect(viaProxy).toBe('viaproxy');
    expect(Number(df.split(/\s+/)[1])).toBeGreaterThan(2.5 * 1024 * 1024); // grown to the 3 GiB disk

    await execText(agent, 'cd /tmp && nohup python3 -m http.server 8080 >/dev/null 2>&1 &');
    let body = '';
    for (let i = 0; i < 100 && !body; i++) {
      body = await fetch(`http://127.0.0.1:${hostPort}/`).then(
        (x) => (x.ok ? x.text() : ''),
        () => '',
      );
      if (!body) await new Promise((res) => setTimeout(res, 200));
    }
    expect(body).toContain('Directory listing');

    const state = await readState(parent());
    expect(state?.bootCount).toBe(1);
    expect(await probeQmp(parent())).toBe('running');
  }, 120_000);

  it("the default image has E2B's conventions: `user` with passwordless sudo, git, python", async () => {
    const r = await execText(agent!, `su - user -c 'id -un; echo $HOME; sudo -n id -u; git --version; python --version' 2>&1`);
    const [name, home, sudoUid, git, python] = r.stdout.trim().split('\n');
    expect([name, home, sudoUid]).toEqual(['user', '/home/user', '0']);
    expect(git).toMatch(/^git version 2\./);
    expect(python).toMatch(/^Python 3\./);
  }, 60_000);

  it('saves and restores: /dev/shm and running processes survive', async () => {
    const r = await execText(agent!, 'echo before-save > /dev/shm/marker; sleep 1000 & echo $!');
    const pid = r.stdout.trim();
    const saved = await saveAndStop(vm!, { agent: agent! });
    expect(isAlive(parent())).toBe(false);
    expect(hasSavedState(parent())).toBe(true);
    expect(statSync(parent().devices).size).toBeLessThan(1024 * 1024); // device state only, RAM stays in `ram`
    expect(saved.ms).toBeLessThan(5000);
    expect(await restoreRanBefore(parent())).toBe(false); // a fresh save has never run: resumed without a reseed
    agent!.close();

    vm = await restoreVm(parent());
    // marked before the guest ran: were this restore cut short, the next one of the same state reseeds
    expect(await restoreRanBefore(parent())).toBe(true);
    agent = await waitForAgent(parent(), { timeoutMs: 30_000, afterRestore: true, reseed: false });
    const after = await execText(agent, `cat /dev/shm/marker; kill -0 ${pid} && echo alive; date +%s; cat /mnt/share/hello.txt`);
    const [marker, alive, guestNow, shared] = after.stdout.trim().split('\n');
    expect(shared).toBe('from-host'); // share mounted again
    expect(marker).toBe('before-save');
    expect(alive).toBe('alive');
    expect(Math.abs(Number(guestNow) - Date.now() / 1000)).toBeLessThan(5); // clock set after restore
    expect(existsSync(parent().devices)).toBe(false); // stale device state is never left behind
  }, 120_000);

  it('attaches to a running VM from its folder (as after a service restart)', async () => {
    expect(await probeQmp(parent())).toBe('running'); // aux monitor, owner still connected
    vm!.qmp.close();
    const h = await attachVm(parent());
    expect(h.pid).toBe(vm!.pid);
    expect((await h.qmp.execute<{ status: string }>('query-status')).status).toBe('running');
    vm = h;
  });

  it('checkpoints live and clones; the clone diverges from the parent', async () => {
    await execText(agent!, 'echo at-checkpoint > /dev/shm/marker; echo at-checkpoint > /root/disk-marker; sync');
    const cpDir = parent().checkpoint('c1');
    // the marker of the restore before is cleared by this save: the state saved now never ran
    let markerAtSave: unknown = 'unread';
    const onSaved = () => (markerAtSave = JSON.parse(readFileSync(parent().stateFile, 'utf8')).restoreStartedAt);
    const { pausedMs } = await checkpointVm(vm!, cpDir, { agent: agent!, onSaved });
    expect(markerAtSave).toBeUndefined();
    expect(pausedMs).toBeLessThan(10_000);
    agent!.close();
    agent = await waitForAgent(parent(), { timeoutMs: 30_000, afterRestore: true });
    expect((await execText(agent, 'cat /dev/shm/marker')).stdout).toBe('at-checkpoint\n');
    for (const f of ['ram', 'devices.bin', 'disk.qcow2', 'meta.json']) expect(existsSync(join(cpDir, f))).toBe(true);
    await execText(agent!, 'echo parent-after > /dev/shm/marker; echo parent-after > /root/disk-marker; sync');

    const clonePort = await freePort();
    await cloneFolder(cpDir, clone(), { ports: [{ hostPort: clonePort, guestPort: 8080 }] });
    vm2 = await restoreVm(clone());
    const c = await waitForAgent(clone(), { timeoutMs: 30_000, afterRestore: true });
    try {
      const seen = await execText(c, 'cat /dev/shm/marker /root/disk-marker');
      expect(seen.stdout).toBe('at-checkpoint\nat-checkpoint\n');
      await execText(c, 'echo clone > /dev/shm/marker; echo clone > /root/disk-marker; sync');
      // The http.server started before the checkpoint runs in the clone too, on its own port.
      expect(await fetch(`http://127.0.0.1:${clonePort}/`).then((x) => x.status)).toBe(200);
    } finally {
      c.close();
    }
    const p = await execText(agent!, 'cat /dev/shm/marker /root/disk-marker');
    expect(p.stdout).toBe('parent-after\nparent-after\n');
    // The checkpoint itself is frozen: the RAM copy is not the parent's live file.
    expect(readFileSync(join(cpDir, 'meta.json'), 'utf8')).toContain(parent().dir);
  }, 180_000);

  it('killVm leaves the folder intact and the box not alive', async () => {
    agent?.close();
    agent = undefined;
    await killVm(vm ?? parent());
    await killVm(vm2 ?? clone());
    for (const f of [parent(), clone()]) {
      expect(isAlive(f)).toBe(false);
      expect(await probeQmp(f)).toBeUndefined();
      expect(existsSync(f.pidFile)).toBe(false);
      for (const p of [f.disk, f.ram, f.stateFile, f.serialLog]) expect(existsSync(p)).toBe(true);
    }
  });
});
