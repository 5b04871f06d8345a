/**
 * Create = clone: a box folder made from a ready template without copying its RAM. The
 * box restores with the template's device state and maps the template's RAM file
 * share=off (copy-on-write in its own QEMU); its disk is a new qcow2 overlay on the
 * template's frozen disk. Then its own identity goes in through the agent (applyIdentity)
 * before the box is reported running.
 */
import { copyFile } from 'node:fs/promises';
import type { AgentClient } from '../guest/agent-client.js';
import { shellQuote } from '../util/shell-quote.js';
import { execText } from './agent-wait.js';
import { type BoxFolder, createOverlay, ensureFolder, livePid, writeState } from './box-folder.js';
import type { Ready } from './templates.js';
import type { VmConfig } from './vm-config.js';

export async function cloneTemplateFolder(tpl: Ready, dst: BoxFolder, own: Pick<VmConfig, 'hostname' | 'ports' | 'proxyPort'>): Promise<void> {
  if (livePid(dst)) throw new Error(`a VM is running for ${dst.dir}`);
  await ensureFolder(dst);
  await createOverlay(dst.disk, tpl.folder.disk, 'qcow2');
  await copyFile(tpl.folder.devices, dst.devices);
  const config: VmConfig = { ...tpl.config, ramFile: tpl.folder.ram, freePageReporting: false, mounts: [], ...own };
  await writeState(dst, { config, bootCount: 0, template: tpl.templateId, clonedFrom: tpl.folder.dir });
}

/**
 * What makes a clone this box and no other (the clock and the RNG are set by
 * waitForAgent on every restore): hostname (so /etc/hostname and the shell prompt agree)
 * and a fresh machine-id (read from the just-reseeded kernel RNG). SSH host keys: the
 * template has none; the SSH feature generates them per box.
 */
export async function applyIdentity(agent: AgentClient, hostname: string): Promise<void> {
  const h = shellQuote(hostname);
  const script = [
    `hostname ${h}`,
    `echo ${h} > /etc/hostname`,
    `tr -d '-' < /proc/sys/kernel/random/uuid > /etc/machine-id`,
    `[ -d /var/lib/dbus ] && cp /etc/machine-id /var/lib/dbus/machine-id; true`,
  ].join(' && ');
  const r = await execText(agent, ['/bin/sh', '-c', script]);
  if (r.exitCode !== 0) throw new Error(`applying the box identity failed: ${r.stderr.trim() || r.stdout.trim()}`);
}
