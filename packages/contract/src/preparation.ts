import { z } from 'zod';

/**
 * What the service prepares once, as `preparation` in `GET /v1/status`: the guest image
 * (its base: the first box waits for it), the warm template (boxes start from it in
 * milliseconds; the first box does not wait for it) and the code interpreter's layer over
 * the image (built after the base, in the background; boxes created once it is ready have
 * it). The UI and `box status` / `box boxes create` show it, with a time left that never goes up.
 */
export const PreparationStage = z.object({
  name: z.enum(['image', 'template', 'code']),
  label: z.string(),
  state: z.enum(['pending', 'running', 'ready', 'failed']),
  percent: z.number().int().min(0).max(100),
  message: z.string(),
  started_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  /** Estimated seconds left, from the pace so far; null until there is a pace to go by. */
  eta_seconds: z.number().int().nullable(),
  /** How long it usually takes on this kind of machine, for the first words shown. */
  typical_seconds: z.number().int(),
  error: z.string().nullable(),
});
export type PreparationStage = z.infer<typeof PreparationStage>;

export const Preparation = z.object({ ready: z.boolean(), stages: z.array(PreparationStage) });
export type Preparation = z.infer<typeof Preparation>;
