/**
 * Create = clone: a box folder made from a ready template without copying its RAM. The
 * box restores with the template's device state and maps the template's RAM file
 * share=off (copy-on-write in its own QEMU); its disk is a new qcow2 overlay on the
 * template's frozen disk. Then its own identity goes in through the agent (applyIdentity)
 * before the box is reported running.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, link, readFile, rm, writeFile } from 'node:fs/promises';
import type { AgentClient } from '../../../platform/guest/agent-client.js';
import { type BoxFolder, createOverlay, ensureFolder, livePid, writeState } from '../box-folder.js';
import type { Ready } from './templates.js';
import type { VmConfig } from '../qemu/vm-config.js';

/** `own.mounts` go into the template's spare 9p slots; the agent mounts them after the restore. */
export async function cloneTemplateFolder(tpl: Ready, dst: BoxFolder, own: Pick<VmConfig, 'hostname' | 'ports' | 'proxyPort' | 'mounts'>): Promise<void> {
  if (livePid(dst)) throw new Error(`a VM is running for ${dst.dir}`);
  await ensureFolder(dst);
  await createOverlay(dst.disk, tpl.folder.disk, 'qcow2');
  // written once, only ever unlinked (restoreVm drops the box's name after the restore)
  await rm(dst.devices, { force: true });
  await link(tpl.folder.devices, dst.devices).catch(() => copyFile(tpl.folder.devices, dst.devices));
  if ((own.mounts?.length ?? 0) > (tpl.config.shareSlots ?? 0))
    throw new Error(`the template has ${tpl.config.shareSlots ?? 0} share slots, the box needs ${own.mounts!.length}`);
  const config: VmConfig = { ...tpl.config, ramFile: tpl.folder.ram, freePageReporting: false, mounts: [], ...own };
  await writeState(dst, { config, bootCount: 0, template: tpl.templateId, clonedFrom: tpl.folder.dir });
  await writeFile(dst.serialLog, await cloneConsole(tpl));
}

/**
 * A clone never boots: its console starts with where it came from, its template's boot
 * output (the last 64 KiB), then its own lines, which QEMU appends (issue 28).
 */
async function cloneConsole(tpl: Ready): Promise<Buffer> {
  const boot = (await readFile(tpl.folder.serialLog).catch(() => Buffer.alloc(0))).subarray(-65536);
  return Buffer.concat([
    Buffer.from(`--- cloned from template ${tpl.templateId}; its boot: ---\n`),
    boot,
    Buffer.from(`${boot.length && boot.at(-1) !== 10 ? '\n' : ''}--- this box, restored from the template: ---\n`),
  ]);
}

/**
 * What makes a clone this box and no other, applied without starting a guest process
 * (a cold exec after a restore costs seconds under TCG): the kernel hostname goes with a
 * second RNG reseed (PROTOCOL.md, RESEED), /etc/hostname and a fresh /etc/machine-id
 * (from host randomness, unless the box is restored in place: it keeps its own) are written through the agent. The clock and the first reseed
 * are done by waitForAgent on every restore. SSH host keys: the template has none; the
 * SSH feature generates them per box.
 */
export async function applyIdentity(agent: AgentClient, hostname: string, { newMachineId = true } = {}): Promise<void> {
  try {
    // not synced: the guest writes them back within seconds; a clone killed before that
    // boots with the template's (the kernel hostname comes from the command line then).
    // Pipelined: the agent serves the three in one wake-up of a guest whose code is not
    // translated yet (TCG), instead of three round trips.
    const opts = { mode: 0o644, createParents: false, durable: false, inPlace: true };
    await Promise.all([
      agent.reseed(randomBytes(64), hostname),
      agent.writeFile('/etc/hostname', opts, Buffer.from(`${hostname}\n`)),
      newMachineId && agent.writeFile('/etc/machine-id', { ...opts, mode: 0o444 }, Buffer.from(`${randomBytes(16).toString('hex')}\n`)),
    ]);
  } catch (e) {
    throw new Error(`applying the box identity failed: ${(e as Error).message}`, { cause: e });
  }
}
