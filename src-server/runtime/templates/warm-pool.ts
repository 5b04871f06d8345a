/**
 * Warm pool: clones of a ready template restored ahead of need and warmed up, so a create
 * takes one instead of restoring. Under TCG a fresh restore spends ~400 ms translating
 * guest code the first time the agent, the file writes and a process start run (QEMU's
 * translation cache is not part of the saved state); a pooled clone has done that already.
 * With KVM/HVF the pool saves the QEMU start and restore (~80 ms).
 *
 * A pooled VM lives in <dataDir>/pool/<id>/ (a BoxFolder) until taken: its folder is then
 * renamed to the box's (QEMU keeps its open files and the sockets move with the folder;
 * state.json's launchDir lets livePid recognise the command line), the box's identity
 * is applied by the caller, its published ports are added over QMP, and the guest reaches
 * the box's egress proxy through a port file read per connection (the netdev is fixed
 * when QEMU starts, before the box exists).
 * Pool VMs never outlive the service: close() ends them, and a start clears what a
 * killed service left behind. They build on a current template only: a template that
 * is removed or goes stale drains its pool first (TemplateStore.onRemove).
 */
import { randomBytes } from 'node:crypto';
import type { GuestFile, TemplateWarmup } from '../../boxes/ports.js';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { waitForAgent } from '../agent-wait.js';
import { execText } from '../exec-text.js';
import { guestAgentAdapter } from '../guest-agent-adapter.js';
import { writeGuestFiles } from '../guest-files.js';
import { BoxFolder, livePid, readState, writeState } from '../box-folder.js';
import { applyIdentity, cloneTemplateFolder } from './template-clone.js';
import type { Ready } from './templates.js';
import type { PortForward } from '../qemu/vm-config.js';
import { restoreVm } from '../qemu/vm-snapshot.js';
import { TemplateStock } from './template-stock.js';
import { addHostForward, killVm, type VmHandle } from '../qemu/vm.js';
import { boxEnv } from '../../settings.js';

interface Pooled {
  folder: BoxFolder;
  handle: VmHandle;
  tpl: Ready;
  portFile: string;
}

/** What makes a taken clone this box's: its folder, hostname, published ports and proxy. */
interface PoolClaim {
  folder: BoxFolder;
  hostname: string;
  ports: PortForward[];
  proxyPort?: number;
}

/** BOX_WARM_POOL: clones kept ready per template in use (default 1; 0 turns the pool off). */
export function warmPoolSize(): number {
  return boxEnv().warmPool ?? 1;
}

export class WarmPool extends TemplateStock<Pooled> {
  /** The files of the latest create: the same for every box of this install (e.g. the egress CA). */
  private files: GuestFile[] = [];

  constructor(
    private dataDir: string,
    size: number,
    /** The other areas' warm-ups: their `clone` steps run in every pooled clone. */
    private warmups: readonly TemplateWarmup[] = [],
  ) {
    super(join(dataDir, 'pool'), size);
  }

  /**
   * Ends pool VMs a killed service left behind (they were never handed to a box) and the
   * proxy port files no box names any more.
   */
  async clearLeftovers(): Promise<void> {
    await this.clearFolders();
    const vmnet = join(this.dataDir, 'vmnet');
    if (!existsSync(vmnet)) return;
    const used = new Set<string>();
    const boxes = join(this.dataDir, 'boxes');
    for (const b of existsSync(boxes) ? readdirSync(boxes) : []) {
      const folder = new BoxFolder(join(boxes, b));
      const st = await readState(folder).catch(() => undefined);
      if (st?.portFile && livePid(folder)) used.add(st.portFile);
    }
    for (const f of readdirSync(vmnet)) if (!used.has(join(vmnet, f))) await rm(join(vmnet, f), { force: true });
  }

  /**
   * Hands a ready clone of `tpl` to the box: its folder becomes `claim.folder` (which must
   * not exist). Undefined when none is ready; the caller restores one itself.
   */
  async take(tpl: Ready, claim: PoolClaim): Promise<VmHandle | undefined> {
    if (existsSync(claim.folder.dir) || !existsSync(tpl.folder.ram)) return undefined;
    const p = this.takeWhere((x) => x.tpl.templateId === tpl.templateId);
    if (!p) return undefined;
    try {
      if (claim.proxyPort) await writeFile(p.portFile, String(claim.proxyPort));
      await mkdir(dirname(claim.folder.dir), { recursive: true });
      await rename(p.folder.dir, claim.folder.dir);
      const state = (await readState(claim.folder))!;
      // later QEMU starts (restore after a sleep) name the proxy port directly
      const config = { ...state.config, hostname: claim.hostname, ports: claim.ports, proxyPort: claim.proxyPort, proxyPortFile: undefined };
      await writeState(claim.folder, { ...state, launchDir: p.folder.dir, portFile: p.portFile, config });
      const handle: VmHandle = { ...p.handle, folder: claim.folder, config };
      for (const f of claim.ports) await addHostForward(handle, f.hostPort, f.guestPort, f.hostAddress);
      return handle;
    } catch (e) {
      await killVm(existsSync(claim.folder.dir) ? claim.folder : p.folder).catch(() => {});
      await rm(p.portFile, { force: true });
      throw e;
    }
  }

  /** Guest files the next warm-ups write ahead (the latest create's). */
  rememberFiles(files: GuestFile[]): void {
    this.files = files;
  }

  /**
   * fill() a moment later: a restore and warm-up take most of a core for ~0.5 s under TCG,
   * which the box just created (and a burst of creates) should not share.
   */
  fillSoon(tpl: Ready, delayMs = 750): void {
    super.fillSoon(tpl, delayMs);
  }

  protected async startOne(tpl: Ready): Promise<Pooled> {
    const id = `p${randomBytes(6).toString('hex')}`;
    const folder = new BoxFolder(join(this.root, id));
    const portFile = join(this.dataDir, 'vmnet', `${id}.proxy-port`);
    await mkdir(dirname(portFile), { recursive: true });
    await cloneTemplateFolder(tpl, folder, { hostname: 'box', ports: [], proxyPort: undefined });
    const state = (await readState(folder))!;
    await writeState(folder, { ...state, config: { ...state.config, proxyPortFile: portFile } });
    const handle = await restoreVm(folder);
    try {
      // what every create runs first (clock, RNG, identity files, a process start): translated now
      const agent = await waitForAgent(folder, { afterRestore: true });
      try {
        await applyIdentity(agent, 'box');
        await writeGuestFiles(agent, folder, this.files);
        await execText(agent, ['/bin/true']);
        await execText(agent, 'true');
        // a login shell (E2B's SDK runs every command as `bash -l -c`, terminals start one)
        await execText(agent, ['/bin/bash', '-l', '-c', 'true']).catch(() => {}); // (an image may have no bash)
        // ... and as E2B's sandboxes run it: as the default image's `user` in its home (envd/target.ts)
        await agent.exec({ argv: ['/bin/bash', '-l', '-c', 'true'], user: 'user', cwd: '/home/user', timeoutMs: 30_000 }).exit.catch(() => {}); // (another image may have no such user)
        // the areas' own first steps (the code interpreter's first cell), on the same connection
        const guest = guestAgentAdapter(agent);
        for (const w of this.warmups) await w.clone?.(guest).catch(() => {});
        // commit the warm-up's writes now: a journal commit (with its disk flush) due later
        // would hold up the taker's identity writes (~100 ms under TCG)
        await execText(agent, ['/bin/sync']);
      } finally {
        agent.close();
      }
    } catch (e) {
      await killVm(handle).catch(() => {});
      await rm(folder.dir, { recursive: true, force: true });
      throw e;
    }
    return { folder, handle, tpl, portFile };
  }

  protected async end(p: Pooled): Promise<void> {
    await killVm(p.handle).catch(() => {});
    await rm(p.folder.dir, { recursive: true, force: true });
    await rm(p.portFile, { force: true });
  }
}
