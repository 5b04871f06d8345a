import { z } from 'zod';

/** Warm templates (ours, beyond the spec: contract/routes.ts): one per image and machine shape. */
export const TemplateIdParams = z.object({
  template_id: z.string().regex(/^tpl_[0-9a-f]{1,64}$/, 'must be a template id (tpl_ followed by hex digits)'),
});

export const Template = z.object({
  template_id: z.string(),
  image: z.string(),
  /** The box size name (s, m, l) when the shape is one, else "custom". */
  size: z.string(),
  vcpu_count: z.number().int(),
  memory_mib: z.number().int(),
  disk_gib: z.number().int(),
  /** A template for boxes with volume mounts (spare 9p slots); boxes without clone the other. */
  volume_slots: z.boolean(),
  state: z.enum(['building', 'ready', 'stale', 'failed']),
  progress: z.object({ phase: z.string(), percent: z.number() }).optional(),
  error: z.string().optional(),
  built_at: z.string().nullable(),
  bytes: z.number().int(),
  boxes: z.number().int(),
  /** Clones restored and warmed ahead of need: the next creates take them (BOX_WARM_POOL). */
  warm_clones: z.number().int(),
  /** QEMUs started ahead (incoming) that take the next resume, fork or pool-empty create of its boxes (BOX_RESTORE_SPARES). */
  restore_spares: z.number().int(),
});
export type Template = z.infer<typeof Template>;

export const TemplateList = z.object({ data: z.array(Template) });
export type TemplateList = z.infer<typeof TemplateList>;
