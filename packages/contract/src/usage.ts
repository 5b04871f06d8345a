import { z } from 'zod';
import { idSchema } from './common.js';

/** Metrics windows and the width of one returned point (every window answers <= 300 points). */
export const METRIC_RANGES = { '1h': 15, '6h': 90, '24h': 300, '7d': 2400 } as const;
export type MetricRange = keyof typeof METRIC_RANGES;
export const RANGE_SECONDS: Record<MetricRange, number> = { '1h': 3600, '6h': 6 * 3600, '24h': 86400, '7d': 7 * 86400 };

export const MetricsQuery = z.object({
  range: z
    .enum(Object.keys(METRIC_RANGES) as [MetricRange, ...MetricRange[]])
    .optional()
    .default('1h'),
});

export const MetricPoint = z.object({
  /** Start of the point's bucket. */
  at: z.string(),
  /** Average vCPUs busy over the bucket; null when no two consecutive samples fall in it. */
  cpu_used_vcpu: z.number().nullable(),
  memory_used_bytes: z.number().nullable(),
  disk_used_bytes: z.number().nullable(),
});
export type MetricPoint = z.infer<typeof MetricPoint>;
export const MetricsResponse = z.object({ range: z.string(), data: z.array(MetricPoint) });

const isoTime = z.iso.datetime({ offset: true });

/** A window of time; `to` defaults to now, `from` to 30 days before `to`. */
const Window = {
  from: isoTime.optional(),
  to: isoTime.optional(),
};

export const SpendQuery = z.object({
  box_id: idSchema('box', 'box_id').optional(),
  app_id: idSchema('app', 'app_id').optional(),
  ...Window,
});
export type SpendQuery = z.infer<typeof SpendQuery>;

export const TokensQuery = z.object(Window);
export type TokensQuery = z.infer<typeof TokensQuery>;

/** Prices in USD nanos (1e-9 USD); set by the service's tuning. */
export const Rates = z.object({
  vcpu_second_usd_nanos: z.number(),
  memory_gib_second_usd_nanos: z.number(),
  input_token_usd_nanos: z.number(),
  output_token_usd_nanos: z.number(),
});
export type Rates = z.infer<typeof Rates>;

const BoxUse = {
  vcpu_seconds: z.number(),
  memory_gib_seconds: z.number(),
  usd_nanos: z.number().int(),
};

export const SpendResponse = z.object({
  start_at: z.string(),
  end_at: z.string(),
  rates: Rates,
  totals: z.object({ box_seconds: z.number(), ...BoxUse }),
  boxes: z.array(z.object({ box_id: z.string(), name: z.string().nullable(), app_id: z.string().nullable(), box_seconds: z.number(), ...BoxUse })),
  /** One entry per UTC day of the window that had usage. */
  series: z.array(z.object({ day: z.string(), usd_nanos: z.number().int() })),
});
export type SpendResponse = z.infer<typeof SpendResponse>;

export const TokenUsageRow = z.object({
  day: z.string(),
  model: z.string(),
  requests: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  usd_nanos: z.number().int(),
});
export type TokenUsageRow = z.infer<typeof TokenUsageRow>;

export const BoxTokenUsage = z.object({
  box_id: z.string(),
  name: z.string().nullable(),
  /** The box's budget (input + output tokens over its life); null = unlimited. */
  inference_budget_tokens: z.number().int().nullable(),
  requests: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  usd_nanos: z.number().int(),
});
export type BoxTokenUsage = z.infer<typeof BoxTokenUsage>;

/** `GET /v1/boxes/{box_id}/inference-budget`: a box's token budget and what it has used of it. */
export const BoxInferenceBudget = z.object({
  box_id: z.string(),
  /** Input + output tokens over the box's life; null = unlimited. */
  inference_budget_tokens: z.number().int().nullable(),
  used_tokens: z.number().int(),
  /** null when unlimited; 0 once spent (requests from the box are then refused with 429). */
  remaining_tokens: z.number().int().nullable(),
});
export type BoxInferenceBudget = z.infer<typeof BoxInferenceBudget>;

export const TokensResponse = z.object({
  start_at: z.string(),
  end_at: z.string(),
  rates: Rates,
  totals: z.object({ requests: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int(), usd_nanos: z.number().int() }),
  data: z.array(TokenUsageRow),
  /** Tokens used from inside boxes (through their egress proxy), per box over the window. */
  boxes: z.array(BoxTokenUsage),
});
export type TokensResponse = z.infer<typeof TokensResponse>;
