import { SIZES } from '@box/contract/boxes';
import type { components } from '@box/contract/e2b-openapi.gen';
import { ENVD_VERSION } from './sandbox-service.js';

type Spec = components['schemas'];
export type Status = 'waiting' | 'building' | 'ready' | 'error';

/** A build as e2b_template_builds keeps it (migration 276): it outlives the service. */
export interface Build {
  build_id: string;
  org_id: string;
  template_id: string;
  status: Status;
  memory_mib: number | null;
  /** JSON of `{ message, step? }` once it failed. */
  reason: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** The template name and the tags it was requested with (JSON; migration 277); null for builds before it. */
  name: string | null;
  tags: string | null;
}

/** A template's sandboxes are Box's default size (E2B reads it from the build). */
const SIZE = { cpuCount: SIZES.s.vcpu_count, memoryMB: SIZES.s.memory_mib, diskSizeMB: SIZES.s.disk_gib * 1024 };

function buildOf(b: Build): Spec['TemplateBuild'] {
  return {
    buildID: b.build_id,
    status: b.status,
    createdAt: b.created_at,
    updatedAt: b.updated_at,
    ...(b.finished_at ? { finishedAt: b.finished_at } : {}),
    ...SIZE,
    envdVersion: ENVD_VERSION,
  };
}

/** E2B's Template of a template built here; `builds` newest first (at least one). */
export function templateOf(templateID: string, builds: Build[]): Spec['Template'] {
  const last = builds[0]!;
  return {
    templateID,
    buildID: (builds.find((b) => b.status === 'ready') ?? last).build_id,
    ...SIZE,
    public: false,
    aliases: [templateID],
    names: [templateID],
    createdAt: builds.at(-1)!.created_at,
    updatedAt: last.updated_at,
    createdBy: null,
    lastSpawnedAt: null,
    spawnCount: 0,
    buildCount: builds.length,
    envdVersion: ENVD_VERSION,
    buildStatus: last.status,
  };
}

/** E2B's TemplateWithBuilds; `builds` newest first (at least one). */
export function templateWithBuilds(templateID: string, builds: Build[]): Spec['TemplateWithBuilds'] {
  return {
    templateID,
    public: false,
    aliases: [templateID],
    names: [templateID],
    createdAt: builds.at(-1)!.created_at,
    updatedAt: builds[0]!.updated_at,
    lastSpawnedAt: null,
    spawnCount: 0,
    builds: builds.map(buildOf),
  };
}
