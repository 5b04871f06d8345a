import { z } from 'zod';

/**
 * What the service prepares once before boxes can start (the guest image today; a warm
 * template when the templates area lands), as `preparation` in `GET /v1/status`. The UI and
 * `box boxes create` show it while a first create waits.
 */
export const PreparationStage = z.object({
  name: z.enum(['image', 'template']),
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
