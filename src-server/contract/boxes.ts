import { z } from 'zod';
import { idSchema, PRINTABLE_ASCII, queryInt } from './common.js';

const BOX_STATUSES = ['creating', 'running', 'paused', 'sleeping', 'terminating', 'terminated', 'failed', 'interrupted_restorable'] as const;
export type BoxStatus = (typeof BOX_STATUSES)[number];

/** Box names are DNS labels: published HTTP listeners answer at `<name>.box.localhost`. */
const BOX_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const boxName = z.string().regex(BOX_NAME, 'must be 1-63 lowercase letters, digits or "-", starting and ending with a letter or digit');

export const SIZES = {
  s: { vcpu_count: 1, memory_mib: 512, disk_gib: 4 },
  m: { vcpu_count: 2, memory_mib: 1024, disk_gib: 8 },
  l: { vcpu_count: 2, memory_mib: 2048, disk_gib: 16 },
} as const;

export const BoxIdParams = z.object({ box_id: idSchema('box', 'box_id') });

const mountPath = z.string().regex(/^\/[A-Za-z0-9._\-/]{0,254}$/, 'must be an absolute path of letters, digits, ".", "-", "_" and "/"').refine((p) => !p.split('/').includes('..'), 'must not contain ".."');

export const AutoSleep = z.strictObject({
  automatic: z.boolean(),
  min_seconds_before_sleep: z.number().int().min(10).max(7 * 86400).nullable().optional(),
});

export const CreateBoxBody = z.strictObject({
  app_id: idSchema('app', 'app_id'),
  name: boxName,
  image: z.string().min(1).max(128).optional().default('debian'),
  size: z.enum(['s', 'm', 'l']).optional().default('s'),
  memory_mib: z.number().int().min(128).max(16384).optional(),
  disk_gib: z.number().int().min(1).max(256).optional(),
  visibility: z.enum(['org', 'private']).optional().default('org'),
  ingress_ports: z.array(z.number().int().min(1).max(65535)).max(16).optional().default([]),
  volume_mounts: z.array(z.strictObject({ volume_id: idSchema('volume', 'volume_id'), mount_path: mountPath })).max(8).optional().default([]),
  http_policy_id: idSchema('httpPolicy', 'http_policy_id').nullable().optional(),
  auto_sleep: AutoSleep.optional(),
  inference_budget_tokens: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
});
export type CreateBoxBody = z.infer<typeof CreateBoxBody>;

export const ListBoxesQuery = z.object({
  app_id: idSchema('app', 'app_id').optional(),
  status: z.enum(BOX_STATUSES).optional(),
  search: z.string().max(128).optional(),
  limit: queryInt(1, 100, 50),
  offset: queryInt(0, 100000, 0),
});

export const SleepBody = z.strictObject({ wake_at: z.iso.datetime({ offset: true }).nullable().optional() });
export const WakeAtBody = z.strictObject({ wake_at: z.iso.datetime({ offset: true }).nullable() });
export const CheckpointBody = z.strictObject({
  name: z.string().min(1).max(128).optional(),
  ttl_seconds: z.number().int().min(60).max(365 * 86400).optional(),
});
export const FromCheckpointBody = z.strictObject({ checkpoint_id: idSchema('checkpoint', 'checkpoint_id'), name: boxName });
export const ForkBody = z.strictObject({ name: boxName, count: z.number().int().min(1).max(8).optional().default(1) });

export const CheckpointIdParams = z.object({ checkpoint_id: idSchema('checkpoint', 'checkpoint_id') });
export const ListCheckpointsQuery = z.object({
  box_id: idSchema('box', 'box_id').optional(),
  app_id: idSchema('app', 'app_id').optional(),
  name: z.string().max(128).optional(),
});

export const OVERRIDE_HEADER = 'X-Box-Override-Reason';
export const overrideReason = z.string().min(1).max(512).regex(PRINTABLE_ASCII, 'must be printable ASCII');

export interface Box {
  box_id: string;
  name: string;
  app_id: string;
  image: string;
  status: BoxStatus;
  error_message: string | null;
  visibility: 'org' | 'private';
  created_by_key_id: string;
  vcpu_count: number;
  memory_mib: number;
  disk_gib: number;
  ingress_ports: number[];
  volume_mounts: { volume_id: string; mount_path: string }[];
  http_policy_id: string | null;
  auto_sleep: { automatic: boolean; min_seconds_before_sleep: number | null };
  /** Tokens (input + output) the box may spend through the gateway; null = unlimited. */
  inference_budget_tokens: number | null;
  wake_at: string | null;
  checkpoint_generation: number;
  last_checkpointed_at: string | null;
  created_at: string;
  started_at: string | null;
  updated_at: string;
  /**
   * The latest start: the operation (create, fork, resume, boot...), how long it took in
   * ms, and what the VM came from (warm_pool, template, saved_state, checkpoint, boot).
   */
  last_start: { operation: string; ms: number; from: string | null } | null;
}

export interface Checkpoint {
  checkpoint_id: string;
  box_id: string;
  app_id: string;
  name: string | null;
  checkpoint_generation: number;
  status: 'creating' | 'ready' | 'failed';
  size_bytes: number;
  created_at: string;
  expires_at: string | null;
}
