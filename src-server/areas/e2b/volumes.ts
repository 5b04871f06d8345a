import crypto from 'node:crypto';
import { Unauthenticated } from '../../kernel/domain-errors.js';
import type { components } from '@box/contract/e2b-openapi.gen';
import { invalid, notFound } from '../../kernel/domain-errors.js';
import type { Db } from '../../platform/db/connection.js';
import type { VolumeContentPort, VolumesPort } from './ports.js';

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

  private async token(orgId: string, volumeId: string): Promise<string> {
    const row = await this.db.get<{ token: string }>('SELECT token FROM e2b_volumes WHERE volume_id = ? AND org_id = ?', [volumeId, orgId]);
    if (row) return row.token;
    const token = `e2bvt_${crypto.randomBytes(24).toString('base64url')}`;
    // two first reads at once: one token wins, both answer it
    await this.db.run('INSERT INTO e2b_volumes (volume_id, org_id, token) VALUES (?, ?, ?) ON CONFLICT (volume_id) DO NOTHING', [volumeId, orgId, token]);
    const kept = await this.db.get<{ token: string }>('SELECT token FROM e2b_volumes WHERE volume_id = ? AND org_id = ?', [volumeId, orgId]);
    return kept?.token ?? token;
  }

  /**
   * The files of the volume whose token `authorization` (`Bearer <token>`) carries: E2B's volume
   * content API authorizes by the volume's token alone (no API key). 401 for a wrong or missing
   * token, the same for an unknown volume (a token tells nothing about other volumes).
   */
  async content(volumeId: string, authorization: string | undefined): Promise<VolumeContentPort> {
    const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
    if (!given) throw new Unauthenticated("the volume content API needs the volume's token: Authorization: Bearer <token> (Volume.connect gives it)");
    const row = await this.db.get<{ token: string; org_id: string }>('SELECT token, org_id FROM e2b_volumes WHERE volume_id = ?', [volumeId]);
    const a = Buffer.from(given);
    const b = Buffer.from(row?.token ?? '');
    if (!row || a.length !== b.length || !crypto.timingSafeEqual(a, b)) throw new Unauthenticated(`the token is not volume ${volumeId}'s`);
    return this.volumes.content(row.org_id, volumeId);
  }

  /** Box's create is find-or-create by name: a name used before answers that volume. */
  async create(orgId: string, name: string): Promise<Spec['VolumeAndToken']> {
    const v = await this.volumes.findOrCreate(orgId, name);
    return { volumeID: v.volume_id, name: v.name, token: await this.token(orgId, v.volume_id) };
  }

  async get(orgId: string, volumeId: string): Promise<Spec['VolumeAndToken']> {
    const v = await this.volumes.get(orgId, volumeId);
    if (!v) throw notFound(`Volume ${volumeId} not found`, 'not_found', 'volumeID');
    return { volumeID: v.volume_id, name: v.name, token: await this.token(orgId, v.volume_id) };
  }

  async list(orgId: string): Promise<Spec['Volume'][]> {
    return (await this.volumes.list(orgId)).map((v) => ({ volumeID: v.volume_id, name: v.name }));
  }

  async delete(orgId: string, volumeId: string): Promise<void> {
    if (!(await this.volumes.get(orgId, volumeId))) throw notFound(`Volume ${volumeId} not found`, 'not_found', 'volumeID');
    await this.volumes.delete(orgId, volumeId);
    await this.db.run('DELETE FROM e2b_volumes WHERE volume_id = ?', [volumeId]);
  }

  /** A sandbox's `volumeMounts` (E2B names a volume by its name) as a box's volume mounts. */
  async mounts(orgId: string, mounts: Array<{ name: string; path: string }>): Promise<Array<{ volume_id: string; mount_path: string }>> {
    const seen = new Set<string>();
    const out: Array<{ volume_id: string; mount_path: string }> = [];
    for (const [i, m] of mounts.entries()) {
      const v = await this.volumes.byName(orgId, m.name);
      if (!v) throw notFound(`volumeMounts[${i}].name: no volume named ${m.name}: create it first (Volume.create)`, 'not_found', `volumeMounts[${i}].name`);
      if (seen.has(m.path)) throw invalid(`volumeMounts[${i}].path: ${m.path} is mounted twice`, `volumeMounts[${i}].path`);
      seen.add(m.path);
      out.push({ volume_id: v.volume_id, mount_path: m.path });
    }
    return out;
  }

  /** A box's volume mounts as E2B's SandboxVolumeMount (by volume name). */
  async named(orgId: string, mounts: Array<{ volume_id: string; mount_path: string }>): Promise<Spec['SandboxVolumeMount'][]> {
    const out: Spec['SandboxVolumeMount'][] = [];
    for (const m of mounts) out.push({ name: (await this.volumes.get(orgId, m.volume_id))?.name ?? m.volume_id, path: m.mount_path });
    return out;
  }
}
