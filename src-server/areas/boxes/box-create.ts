import { SIZES, type CreateBoxBody } from '@box/contract/boxes';
import { newId } from '@box/contract/common';
import type { AppsService } from '../../identity/module.js';
import { conflict, invalid, notFound } from '../../kernel/domain-errors.js';
import type { Principal } from '../../kernel/principal.js';
import type { PoliciesService } from '../policies/ports.js';
import type { VolumesService } from '../volumes/ports.js';
import type { BoxRecord, BoxesRepo } from './boxes-repo.js';
import { UnknownImage } from './unknown-image.js';

/** What a box creation is checked against: other areas' services, and this area's names. */
interface CreateChecks {
  apps: Pick<AppsService, 'exists'>;
  images: () => string[];
  volumes: Pick<VolumesService, 'get'>;
  policies: Pick<PoliciesService, 'get'>;
}

/**
 * Checks a creation request against the organization's apps, images, volumes and policies;
 * throws the first problem as a domain error naming the field (spec: 4xx, nothing is
 * created). The name is checked by the insert itself (insertNewBox).
 */
export async function checkCreate(c: CreateChecks, auth: Principal, body: CreateBoxBody): Promise<void> {
  if (!(await c.apps.exists(auth.orgId, body.app_id)))
    throw notFound(`No app ${body.app_id} in this organization; create it with POST /v1/apps/find.`, null, 'app_id');
  const images = c.images();
  if (!images.includes(body.image)) throw new UnknownImage(`Unknown image "${body.image}"; available: ${images.join(', ')}.`, { param: 'image' });
  const seen = new Set<string>();
  for (const [i, m] of body.volume_mounts.entries()) {
    if ((await c.volumes.get(auth.orgId, m.volume_id))?.status !== 'ready')
      throw notFound(`No volume ${m.volume_id}.`, 'not_found', `volume_mounts[${i}].volume_id`);
    if (seen.has(m.mount_path)) throw invalid(`Mount path ${m.mount_path} is used twice.`, `volume_mounts[${i}].mount_path`);
    seen.add(m.mount_path);
  }
  if (body.http_policy_id && !(await c.policies.get(auth.orgId, body.http_policy_id))) {
    throw notFound(`No HTTP policy ${body.http_policy_id}.`, null, 'http_policy_id');
  }
}

const nameTaken = (name: string) => conflict(`A box named "${name}" already exists.`, 'already_exists', 'name');

/** 409 `already_exists` naming `name` when a box of the organization (not terminated) has it. */
export async function assertNameFree(repo: Pick<BoxesRepo, 'nameTaken'>, orgId: string, name: string): Promise<void> {
  if (await repo.nameTaken(orgId, name)) throw nameTaken(name);
}

/** Stores a new box, or throws the same 409 when its name is taken (decided by the insert: no race). */
export async function insertNewBox(repo: Pick<BoxesRepo, 'insert'>, rec: BoxRecord): Promise<void> {
  if (!(await repo.insert(rec))) throw nameTaken(rec.name);
}

/**
 * insertNewBox while `lookups` (the new VM's configuration: its ports, one round trip each on
 * PostgreSQL) run beside it; when the insert is refused, what they took is given back
 * (`gone`). A failure of `lookups` is left to whoever awaits them (the boot: the box fails).
 */
export async function insertBeside(repo: Pick<BoxesRepo, 'insert'>, rec: BoxRecord, lookups: Promise<unknown>, gone: (id: string) => Promise<void>) {
  lookups.catch(() => {});
  try {
    await insertNewBox(repo, rec);
  } catch (e) {
    void lookups.then(() => gone(rec.box_id)).catch(() => {});
    throw e;
  }
}

/** What every new box starts afresh, created or restored from a checkpoint: a new id, `creating`, no history (a box from a checkpoint then records it: `on_checkpoint_id`). */
export function freshLife(auth: Principal) {
  const now = new Date().toISOString();
  return {
    box_id: newId('box'),
    status: 'creating' as const,
    error_message: null,
    created_by_key_id: auth.key.id,
    wake_at: null,
    checkpoint_generation: 0,
    last_checkpointed_at: null,
    on_checkpoint_id: null,
    last_activity_at: now,
    created_at: now,
    started_at: null,
    updated_at: now,
    last_start: null,
  };
}

/** The record of a new box (status `creating`), its size's defaults filled in. */
export function newBoxRecord(auth: Principal, body: CreateBoxBody): BoxRecord {
  const size = SIZES[body.size];
  return {
    ...freshLife(auth),
    org_id: auth.orgId,
    name: body.name,
    app_id: body.app_id,
    image: body.image,
    visibility: body.visibility,
    vcpu_count: size.vcpu_count,
    memory_mib: body.memory_mib ?? size.memory_mib,
    disk_gib: body.disk_gib ?? size.disk_gib,
    ingress_ports: [...new Set(body.ingress_ports)],
    volume_mounts: body.volume_mounts,
    http_policy_id: body.http_policy_id ?? null,
    auto_sleep: { automatic: body.auto_sleep?.automatic ?? false, min_seconds_before_sleep: body.auto_sleep?.min_seconds_before_sleep ?? null },
    inference_budget_tokens: body.inference_budget_tokens ?? null,
  };
}
