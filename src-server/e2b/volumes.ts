import crypto from 'node:crypto';
import type { components } from '../contract/e2b-openapi.gen.js';
import { invalid, notFound } from '../core/domain-errors.js';
import type { Db } from '../db/connection.js';
import type { VolumesPort } from './ports.js';

type Spec = components['schemas'];

/**
 * E2B's volumes (`/volumes`, `volumeMounts` at create) as Box volumes: an E2B volume is a Box
 * volume of the organization (its id the Box volume id), so it shows in `box volume list`,
 * the MCP tools, the SDKs and the UI, and a Box volume is one E2B lists. A sandbox's
 * `volumeMounts` (by volume name) are its box's volume mounts. The token E2B's volume
 * content API wants is kept beside it (e2b_volumes).
 */
export class E2BVolumes {
  constructor(
    private db: Db,
    private volumes: VolumesPort,
  ) {}

  private token(orgId: string, volumeId: string): string {
    const row = this.db.prepare('SELECT token FROM e2b_volumes WHERE volume_id = ? AND org_id = ?').get(volumeId, orgId) as { token: string } | undefined;
    if (row) return row.token;
    const token = `e2bvt_${crypto.randomBytes(24).toString('base64url')}`;
    this.db.prepare('INSERT OR REPLACE INTO e2b_volumes (volume_id, org_id, token) VALUES (?, ?, ?)').run(volumeId, orgId, token);
    return token;
  }

  /** Box's create is find-or-create by name: a name used before answers that volume. */
  create(orgId: string, name: string): Spec['VolumeAndToken'] {
    const v = this.volumes.findOrCreate(orgId, name);
    return { volumeID: v.volume_id, name: v.name, token: this.token(orgId, v.volume_id) };
  }

  get(orgId: string, volumeId: string): Spec['VolumeAndToken'] {
    const v = this.volumes.get(orgId, volumeId);
    if (!v) throw notFound(`Volume ${volumeId} not found`, 'not_found', 'volumeID');
    return { volumeID: v.volume_id, name: v.name, token: this.token(orgId, v.volume_id) };
  }

  list(orgId: string): Spec['Volume'][] {
    return this.volumes.list(orgId).map((v) => ({ volumeID: v.volume_id, name: v.name }));
  }

  async delete(orgId: string, volumeId: string): Promise<void> {
    if (!this.volumes.get(orgId, volumeId)) throw notFound(`Volume ${volumeId} not found`, 'not_found', 'volumeID');
    await this.volumes.delete(orgId, volumeId);
    this.db.prepare('DELETE FROM e2b_volumes WHERE volume_id = ?').run(volumeId);
  }

  /** A sandbox's `volumeMounts` (E2B names a volume by its name) as a box's volume mounts. */
  mounts(orgId: string, mounts: Array<{ name: string; path: string }>): Array<{ volume_id: string; mount_path: string }> {
    const seen = new Set<string>();
    return mounts.map((m, i) => {
      const v = this.volumes.byName(orgId, m.name);
      if (!v) throw notFound(`volumeMounts[${i}].name: no volume named ${m.name}: create it first (Volume.create)`, 'not_found', `volumeMounts[${i}].name`);
      if (seen.has(m.path)) throw invalid(`volumeMounts[${i}].path: ${m.path} is mounted twice`, `volumeMounts[${i}].path`);
      seen.add(m.path);
      return { volume_id: v.volume_id, mount_path: m.path };
    });
  }

  /** A box's volume mounts as E2B's SandboxVolumeMount (by volume name). */
  named(orgId: string, mounts: Array<{ volume_id: string; mount_path: string }>): Spec['SandboxVolumeMount'][] {
    return mounts.map((m) => ({ name: this.volumes.get(orgId, m.volume_id)?.name ?? m.volume_id, path: m.mount_path }));
  }
}
