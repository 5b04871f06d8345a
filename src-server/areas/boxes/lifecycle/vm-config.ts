import type { VolumesService } from '../../volumes/ports.js';
import type { BoxNetwork } from '../box-hooks.js';
import type { BoxRecord } from '../boxes-repo.js';
import type { GuestSetupRegistry } from '../guest-setup.js';
import type { VmConfig } from '../runtime-port.js';

/** What the runtime needs to start a box's VM: its record, volume folders, networking and guest files. */
export async function boxVmConfig(
  box: BoxRecord,
  volumes: Pick<VolumesService, 'hostPath'>,
  network: BoxNetwork,
  guestSetup: Pick<GuestSetupRegistry, 'files'>,
): Promise<VmConfig> {
  // Each lookup is a round trip on PostgreSQL: side by side, not one after another.
  const [mounts, forwards, proxyPort] = await Promise.all([
    Promise.all(
      box.volume_mounts.map(async (m, i) => ({ tag: `vol${i}`, hostPath: await volumes.hostPath(box.org_id, m.volume_id), guestPath: m.mount_path })),
    ),
    network.forwardsFor(box.box_id),
    network.proxyPortFor(box.box_id),
  ]);
  return {
    boxId: box.box_id,
    hostname: box.name,
    image: box.image,
    vcpus: box.vcpu_count,
    memoryMib: box.memory_mib,
    diskGib: box.disk_gib,
    mounts,
    forwards,
    proxyPort,
    files: guestSetup.files(box),
  };
}
