import { z } from 'zod';
import { idSchema, PRINTABLE_ASCII, queryInt } from './common.js';

const BOX_STATUSES = ['creating', 'running', 'paused', 'sleeping', 'terminating', 'terminated', 'failed', 'interrupted_restorable'] as const;
export type BoxStatus = (typeof BOX_STATUSES)[number];

/** Box names are DNS labels: published HTTP listeners answer at `<name>.box.localhost`. */
export const BOX_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const boxName = z.string().regex(BOX_NAME, 'must be 1-63 lowercase letters, digits or "-", starting and ending with a letter or digit');

export const SIZES = {
  s: { vcpu_count: 1, memory_mib: 512, disk_gib: 4 },
  m: { vcpu_count: 2, memory_mib: 1024, disk_gib: 8 },
  l: { vcpu_count: 2, memory_mib: 2048, disk_gib: 16 },
} as const;

export const BoxIdParams = z.object({ box_id: idSchema('box', 'box_id') });

const mountPath = z
  .string()
  .regex(/^\/[A-Za-z0-9._\-/]{0,254}$/, 'must be an absolute path of letters, digits, ".", "-", "_" and "/"')
  .refine((p) => !p.split('/').includes('..'), 'must not contain ".."');

export const AutoSleep = z.strictObject({
  automatic: z.boolean(),
  min_seconds_before_sleep: z
    .number()
    .int()
    .min(10)
    .max(7 * 86400)
    .nullable()
    .optional(),
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
  volume_mounts: z
    .array(z.strictObject({ volume_id: idSchema('volume', 'volume_id'), mount_path: mountPath }))
    .max(8)
    .optional()
    .default([]),
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
  ttl_seconds: z
    .number()
    .int()
    .min(60)
    .max(365 * 86400)
    .optional(),
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

export const BoxStart = z.object({ operation: z.string(), ms: z.number(), from: z.string().nullable() });
export type BoxStart = z.infer<typeof BoxStart>;

export const Box = z.object({
  box_id: z.string(),
  name: z.string(),
  app_id: z.string(),
  image: z.string(),
  status: z.enum(BOX_STATUSES),
  error_message: z.string().nullable(),
  visibility: z.enum(['org', 'private']),
  created_by_key_id: z.string(),
  vcpu_count: z.number().int(),
  memory_mib: z.number().int(),
  disk_gib: z.number().int(),
  ingress_ports: z.array(z.number().int()),
  /**
   * Where each of `ingress_ports` answers through the ingress (additive to the spec's record):
   * `http://<name>.box.localhost:<ingress port>/` for the box's first published http port,
   * `http://<port>.<name>.box.localhost:<ingress port>/` for the others.
   */
  ingress_urls: z.array(z.object({ guest_port: z.number().int(), url: z.string() })),
  volume_mounts: z.array(z.object({ volume_id: z.string(), mount_path: z.string() })),
  http_policy_id: z.string().nullable(),
  auto_sleep: z.object({ automatic: z.boolean(), min_seconds_before_sleep: z.number().int().nullable() }),
  /** Tokens (input + output) the box may spend through the gateway; null = unlimited. */
  inference_budget_tokens: z.number().int().nullable(),
  wake_at: z.string().nullable(),
  checkpoint_generation: z.number().int(),
  last_checkpointed_at: z.string().nullable(),
  /**
   * The checkpoint whose state the box runs on from (additive to the spec's record): the last
   * one taken of it, the one it was started from (from_checkpoint, a fork's child) or restored
   * to in place, whichever came last; null when none, or when that checkpoint was deleted.
   */
  on_checkpoint_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  updated_at: z.string(),
  /**
   * The latest start: the operation (create, fork, resume, boot...), how long it took in
   * ms, and what the VM came from (warm_pool, template, new_template: a template built during
   * this start, saved_state, checkpoint, boot).
   */
  last_start: BoxStart.nullable(),
});
export type Box = z.infer<typeof Box>;

export const Checkpoint = z.object({
  checkpoint_id: z.string(),
  box_id: z.string(),
  app_id: z.string(),
  name: z.string().nullable(),
  checkpoint_generation: z.number().int(),
  status: z.enum(['creating', 'ready', 'failed']),
  size_bytes: z.number().int(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

export const ResumeResult = z.object({ box_id: z.string(), status: z.enum(BOX_STATUSES), resume_state: z.enum(['running', 'already_running']), box: Box });
export const ForkResult = z.object({ checkpoint_id: z.string(), boxes: z.array(Box) });
export const LineageEdge = z.object({ box_id: z.string(), parent_box_id: z.string().nullable(), checkpoint_id: z.string().nullable() });
export type LineageEdge = z.infer<typeof LineageEdge>;

/** PUT /v1/boxes/{id}/inference-budget: input + output tokens over the box's life; null = unlimited. */
export const BudgetBody = z.strictObject({ inference_budget_tokens: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable() });
