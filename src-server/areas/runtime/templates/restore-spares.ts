/**
 * Restore spares: per template in use, a QEMU started ahead with `-incoming defer` on a
 * placeholder clone folder, so a restore of a box built on that template (resume from
 * sleep, a fork's child, a create with the warm pool empty) skips QEMU's start: exec,
 * loading and machine set-up cost ~45 ms of a ~100 ms resume under TCG here.
 *
 * A restore takes a spare whose command line is the box's own but for what can change
 * under an incoming VM:
 *  - the disk: an incoming QEMU holds its images inactive and reads the qcow2 metadata
 *    again when the migration completes, so the box's overlay is opened as a new file
 *    node and swapped in under the qcow2 node (blockdev-reopen) before the load; the box's
 *    overlay must build on the same template layer as the placeholder's;
 *  - the egress proxy, read per guest connection from a port file (as for warm-pool clones);
 *  - published ports, added over QMP (hostfwd);
 *  - the folder: the spare's sockets, pid file and console log move into the box's folder
 *    (QEMU keeps them open, clients connect by the new path) and state.json's launchDir
 *    names the spare's folder, which the command line mentions (box-folder.ts livePid).
 * Boxes with shared folders (9p paths are fixed at start) restore their own QEMU.
 * Spares never outlive the service: close() ends them, a start clears leftovers.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BoxFolder, type BoxState, readState, writeState } from '../box-folder.js';
import { cloneTemplateFolder } from './template-clone.js';
import type { Ready } from './templates.js';
import { qemuArgs, type VmConfig } from '../qemu/vm-config.js';
import { TemplateStock } from './template-stock.js';
import { addHostForward, killVm, startQemu, type VmHandle } from '../qemu/vm.js';
import { boxEnv } from '../../../platform/settings.js';

interface Spare {
  folder: BoxFolder;
  handle: VmHandle;
  tpl: Ready;
  portFile: string;
  /** The template layer the placeholder overlay builds on. */
  backing: string;
}

/** What restoreVm records of a taken spare (state.json). */
interface TakenSpare {
  handle: VmHandle;
  launchDir: string;
  portFile: string;
}

/** BOX_RESTORE_SPARES: spares kept per template in use (default 1; 0 turns them off). */
export function restoreSpareCount(): number {
  return boxEnv().restoreSpares ?? 1;
}

/** The backing file a qcow2 image names in its header (undefined: none, or not qcow2). */
async function qcow2Backing(path: string): Promise<string | undefined> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(20);
    await fh.read(head, 0, 20, 0);
    if (head.readUInt32BE(0) !== 0x514649fb) return undefined;
    const offset = Number(head.readBigUInt64BE(8));
    const size = head.readUInt32BE(16);
    if (!offset || !size || size > 1023) return undefined;
    const name = Buffer.alloc(size);
    await fh.read(name, 0, size, offset);
    return name.toString('utf8');
  } finally {
    await fh.close();
  }
}

/** The command line a spare in `folder` runs for a box with `config` (what must match). */
function spareArgs(folder: BoxFolder, config: VmConfig, portFile: string): string {
  const norm: VmConfig = { ...config, hostname: 'box', ports: [], proxyPort: undefined, proxyPortFile: portFile, mounts: [] };
  return qemuArgs(folder, norm, { incoming: true }).join('\0');
}

export class RestoreSpares extends TemplateStock<Spare> {
  constructor(
    private dataDir: string,
    size: number,
  ) {
    super(join(dataDir, 'spares'), size);
  }

  /** Ends spares a killed service left behind (never handed to a box). */
  clearLeftovers(): Promise<void> {
    return this.clearFolders();
  }

  fillSoon(tpl: Ready, delayMs = 100): void {
    super.fillSoon(tpl, delayMs);
  }

  protected async startOne(tpl: Ready): Promise<Spare> {
    const id = `s${randomBytes(6).toString('hex')}`;
    const folder = new BoxFolder(join(this.root, id));
    const portFile = join(this.dataDir, 'vmnet', `${id}.proxy-port`);
    await mkdir(dirname(portFile), { recursive: true });
    await cloneTemplateFolder(tpl, folder, { hostname: 'box', ports: [], proxyPort: undefined });
    const state = (await readState(folder))!;
    const config: VmConfig = { ...state.config, proxyPortFile: portFile };
    await writeState(folder, { ...state, config });
    try {
      const handle = await startQemu(folder, config, { incoming: true });
      return { folder, handle, tpl, portFile, backing: tpl.folder.disk };
    } catch (e) {
      await rm(folder.dir, { recursive: true, force: true });
      throw e;
    }
  }

  /**
   * A spare made the QEMU of the box in `folder` (its saved state `state`, config with the
   * network it restores with), still incoming: the caller loads the device state. Undefined
   * when no spare fits; the caller starts QEMU itself.
   */
  async take(folder: BoxFolder, state: BoxState): Promise<TakenSpare | undefined> {
    const config = state.config;
    if (!config.ramFile || config.mounts?.length || !this.ready.length) return undefined;
    const fits = (s: Spare) =>
      s.tpl.folder.ram === config.ramFile && spareArgs(s.folder, config, s.portFile) === spareArgs(s.folder, s.handle.config, s.portFile);
    const candidate = this.ready.find(fits);
    if (!candidate || (await qcow2Backing(folder.disk).catch(() => undefined)) !== candidate.backing) return undefined;
    const s = this.takeWhere((x) => x === candidate);
    if (!s) return undefined;
    this.fillSoon(s.tpl);
    try {
      return await this.adopt(s, folder, config);
    } catch {
      await this.end(s);
      return undefined;
    }
  }

  private async adopt(s: Spare, folder: BoxFolder, config: VmConfig): Promise<TakenSpare> {
    const { qmp } = s.handle;
    // the box's overlay under the qcow2 node; the template layer stays its backing
    const nodes = await qmp.execute<{ 'node-name': string; drv: string; file: string }[]>('query-named-block-nodes', { flat: true });
    const backing = nodes.find((n) => n.drv === 'qcow2' && n.file === s.backing)?.['node-name'];
    if (!backing) throw new Error('the spare has no template layer node');
    await qmp.execute('blockdev-add', { driver: 'file', filename: folder.disk, 'node-name': 'disk0-box' });
    await qmp.execute('blockdev-reopen', { options: [{ driver: 'qcow2', 'node-name': 'disk0', file: 'disk0-box', backing }] });
    await qmp.execute('blockdev-del', { 'node-name': 'disk0-file' });
    if (config.proxyPort) await appendFile(s.portFile, String(config.proxyPort), { flag: 'w' });
    // the box's console history instead of the placeholder's (its template's boot): QEMU appends (O_APPEND) and the guest has not run yet
    const history = await readFile(folder.serialLog).catch(() => undefined);
    if (history?.length) await writeFile(s.folder.serialLog, history.subarray(-65536));
    for (const f of ['qmpSock', 'qmpAuxSock', 'agentSock', 'serialLog', 'pidFile'] as const) await rename(s.folder[f], folder[f]);
    await rm(s.folder.dir, { recursive: true, force: true });
    const handle: VmHandle = { ...s.handle, folder, config };
    for (const p of config.ports ?? []) await addHostForward(handle, p.hostPort, p.guestPort, p.hostAddress);
    return { handle, launchDir: s.folder.dir, portFile: s.portFile };
  }

  protected async end(s: Spare): Promise<void> {
    await killVm(s.handle).catch(() => {});
    await rm(s.folder.dir, { recursive: true, force: true });
    await rm(s.portFile, { force: true });
  }
}
