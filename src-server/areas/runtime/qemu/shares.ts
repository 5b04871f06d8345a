/**
 * Volume mounts (virtio-9p) and snapshots: QEMU refuses to migrate while a 9p export is
 * mounted in the guest, so shares are unmounted through the agent before a save or
 * checkpoint and mounted again after the restore (the initramfs mounts them at boot).
 */
import type { AgentClient } from '../../../platform/guest/agent-client.js';
import { execText } from '../exec-text.js';
import { shellQuote as q } from '../../../kernel/util/shell-quote.js';
import type { VmConfig } from './vm-config.js';

const MOUNT_OPTS = 'trans=virtio,version=9p2000.L,msize=512000';

/** Unmounts every share; throws (VM untouched) when one is busy. */
export async function unmountShares(agent: AgentClient, config: VmConfig): Promise<void> {
  const mounts = config.mounts ?? [];
  if (!mounts.length) return;
  const script = mounts.map((m) => `if mountpoint -q ${q(m.guestPath)}; then umount ${q(m.guestPath)} || exit 1; fi`).join('; ');
  const r = await execText(agent, ['/bin/sh', '-c', script]);
  if (r.exitCode !== 0) throw new Error(`cannot unmount shared folders before saving: ${r.stderr.trim() || r.stdout.trim()}`);
}

export async function mountShares(agent: AgentClient, config: VmConfig): Promise<void> {
  const mounts = config.mounts ?? [];
  if (!mounts.length) return;
  const script = mounts
    .map(
      (m, i) =>
        `mountpoint -q ${q(m.guestPath)} || { mkdir -p ${q(m.guestPath)} && mount -t 9p -o ${MOUNT_OPTS}${m.readOnly ? ',ro' : ''} vol${i} ${q(m.guestPath)}; } || exit 1`,
    )
    .join('; ');
  const r = await execText(agent, ['/bin/sh', '-c', script]);
  if (r.exitCode !== 0) throw new Error(`cannot mount shared folders: ${r.stderr.trim() || r.stdout.trim()}`);
}
