import fs from 'node:fs';
import path from 'node:path';
import type { AppBase } from '../../platform/app-context.js';
import { newId } from '@box/contract/common';
import type { Volume } from '@box/contract/volumes';
import { conflict, notFound } from '../../kernel/domain-errors.js';
import { VolumesRepo } from './volumes-repo.js';
import { VolumeRoot } from './safe-fs.js';
import { VolumeContent } from './volume-content.js';

/** Ids of the live boxes that mount a volume; the boxes area installs the real one. */
type MountChecker = (orgId: string, volumeId: string) => Promise<string[]>;

export interface VolumesService {
  get(orgId: string, volumeId: string): Promise<Volume | undefined>;
  /** Host directory holding a ready volume's files (the boxes area shares it into VMs over 9p); 404 otherwise. */
  hostPath(orgId: string, volumeId: string): Promise<string>;
  /** Replaces the check used by DELETE (409 while mounted by a live box). */
  setMountChecker(fn: MountChecker): void;
}

/**
 * Until the boxes area installs its checker (wiring.ts builds boxes right after volumes):
 * the volumes area does not read the boxes table itself, so it refuses to decide.
 */
const noChecker: MountChecker = () => {
  throw new Error('volumes: no mount checker installed (the boxes area installs it in wiring.ts)');
};

export class Volumes implements VolumesService {
  readonly repo: VolumesRepo;
  private mountedBy: MountChecker;
  readonly fileMaxBytes: number;

  constructor(private app: AppBase) {
    this.repo = new VolumesRepo(app.db);
    this.mountedBy = noChecker;
    this.fileMaxBytes = app.config.tuning.volumeFileMaxBytes;
    this.secureAndSweep();
  }

  /**
   * At start: volumes are reachable by the service user only (0700), so a file a box made
   * executable (or setuid, through its 9p mount) can never be run by another host user;
   * boxes keep seeing their own modes. Upload temp files left by a crash are removed.
   */
  private secureAndSweep() {
    const top = path.join(this.app.config.dataDir, 'volumes');
    fs.mkdirSync(top, { recursive: true, mode: 0o700 });
    fs.chmodSync(top, 0o700);
    for (const ent of fs.readdirSync(top, { withFileTypes: true })) {
      if (!ent.isDirectory()) continue;
      const id = ent.name;
      const tmp = path.join(top, id, 'tmp');
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.mkdirSync(tmp, { mode: 0o700 });
      fs.chmodSync(path.join(top, id), 0o700);
    }
  }

  private dir(volumeId: string) {
    return path.join(this.app.config.dataDir, 'volumes', volumeId, 'data');
  }

  async get(orgId: string, volumeId: string) {
    return await this.repo.get(orgId, volumeId);
  }

  /** One page of the organization's live volumes, oldest first. */
  async list(orgId: string, limit: number, offset: number) {
    return await this.repo.listReady(orgId, limit, offset);
  }

  /** 404 unless the volume exists in the org and is ready. */
  async ready(orgId: string, volumeId: string): Promise<Volume> {
    const v = await this.repo.get(orgId, volumeId);
    if (!v) throw notFound(`No volume ${volumeId} in this organization.`, 'not_found', 'volume_id');
    if (v.status !== 'ready') throw notFound(`Volume ${volumeId} was deleted.`, 'not_found', 'volume_id');
    return v;
  }

  async hostPath(orgId: string, volumeId: string) {
    await this.ready(orgId, volumeId);
    return this.dir(volumeId);
  }

  async root(orgId: string, volumeId: string) {
    return new VolumeRoot(await this.hostPath(orgId, volumeId));
  }

  /** The volume's files with owners and times (E2B's volume content API); 404 unless ready. */
  async content(orgId: string, volumeId: string) {
    return new VolumeContent(await this.root(orgId, volumeId), this.fileMaxBytes);
  }

  setMountChecker(fn: MountChecker) {
    this.mountedBy = fn;
  }

  /** Find-or-create by name: safe to call on every start (spec, POST /v1/box-volumes). */
  async findOrCreate(orgId: string, name: string): Promise<Volume> {
    const found = await this.repo.findReady(orgId, name);
    if (found) return found;
    const id = newId('volume');
    fs.mkdirSync(path.dirname(this.dir(id)), { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.dir(id), { mode: 0o755 }); // the root boxes see through their mount
    if (!(await this.repo.insert(orgId, id, name, 'local', new Date().toISOString()))) {
      fs.rmSync(path.dirname(this.dir(id)), { recursive: true, force: true }); // lost a race to the same name
    }
    return (await this.repo.findReady(orgId, name))!;
  }

  /** Marks the volume deleted and removes its files; 409 while a live box mounts it. */
  async delete(orgId: string, volumeId: string): Promise<Volume> {
    const v = await this.repo.get(orgId, volumeId);
    if (!v) throw notFound(`No volume ${volumeId} in this organization.`, 'not_found', 'volume_id');
    if (v.status === 'deleted') return v;
    const boxes = await this.mountedBy(orgId, volumeId);
    if (boxes.length) throw conflict(`Volume ${volumeId} is mounted by ${boxes.join(', ')}; terminate those boxes first.`, 'failed_precondition');
    await this.repo.markDeleted(orgId, volumeId, new Date().toISOString());
    await fs.promises.rm(path.dirname(this.dir(volumeId)), { recursive: true, force: true });
    return (await this.repo.get(orgId, volumeId))!;
  }
}
