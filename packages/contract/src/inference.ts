import { z } from 'zod';
import { ChatExtras, ResponsesExtras } from './inference-extras.js';

/**
 * Inference API contract (spec, Inference API and Events). Request bodies are open-ended
 * (the spec's field lists are "open-ended"): unknown fields pass through zod, and each
 * wire adapter refuses the documented limitations with a 400 naming the field.
 */

/** Metadata: a map with string values (spec, Request metadata keys). */
const Metadata = z.record(z.string(), z.string({ error: 'metadata values must be strings' }));
export const COMPLETION_WINDOWS = ['asap', '15m', '24h'] as const;

const num = (min: number, max: number) => z.number().min(min).max(max).nullish();
const maxTokens = z.number().int().min(1).nullish();

/** JSON-schema structured output, the three styles' shapes. */
const JsonSchemaName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1..64 letters, digits, "_" or "-"');
const JsonSchemaObject = z.record(z.string(), z.unknown());

const TextFormat = z.discriminatedUnion(
  'type',
  [
    z.looseObject({ type: z.literal('text') }),
    z.looseObject({
      type: z.literal('json_schema'),
      name: JsonSchemaName,
      schema: JsonSchemaObject,
      description: z.string().nullish(),
      strict: z.boolean().nullish(),
    }),
  ],
  { error: 'must be {type: "text"} or {type: "json_schema", name, schema}' },
);

export const ResponsesBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({}))], { error: 'must be a string or an array of message items' }),
  instructions: z.string().nullish(),
  max_output_tokens: maxTokens,
  temperature: num(0, 2),
  top_p: num(0, 1),
  text: z.looseObject({ format: TextFormat.nullish() }).nullish(),
  reasoning: z
    .looseObject({
      effort: z.enum(['low', 'medium', 'high']).nullish(),
      generate_summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  background: z.boolean().nullish(),
  metadata: Metadata.nullish(),
  user: z.string().nullish(),
  ...ResponsesExtras,
});
export type ResponsesBody = z.infer<typeof ResponsesBody>;

export const ChatBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })).min(1),
  temperature: num(0, 2),
  top_p: num(0, 1),
  max_completion_tokens: maxTokens,
  max_tokens: maxTokens,
  response_format: z
    .discriminatedUnion(
      'type',
      [
        z.looseObject({ type: z.literal('text') }),
        z.looseObject({
          type: z.literal('json_schema'),
          json_schema: z.looseObject({
            name: JsonSchemaName,
            schema: JsonSchemaObject,
            description: z.string().nullish(),
            strict: z.boolean().nullish(),
          }),
        }),
      ],
      { error: 'must be {type: "text"} or {type: "json_schema", json_schema: {name, schema}}' },
    )
    .nullish(),
  reasoning_effort: z.enum(['low', 'medium', 'high']).nullish(),
  metadata: Metadata.nullish(),
  user: z.string().nullish(),
  n: z.number().int().nullish(),
  ...ChatExtras,
});
export type ChatBody = z.infer<typeof ChatBody>;

export const MessagesBody = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  // `system` inside messages (beyond the spec): an instruction at that point of the conversation (Claude Code sends one).
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant', 'system']), content: z.unknown() })).min(1),
  temperature: num(0, 1),
  top_p: num(0, 1),
  output_config: z
    .looseObject({
      format: z.looseObject({ type: z.literal('json_schema'), schema: JsonSchemaObject, name: JsonSchemaName.nullish() }).nullish(),
    })
    .nullish(),
  metadata: Metadata.nullish(),
  stream: z.boolean().nullish(),
});
export type MessagesBody = z.infer<typeof MessagesBody>;

export const ResponseIdParams = z.object({
  response_id: z.string().regex(/^(resp_|chatcmpl-|msg_)[A-Za-z0-9_-]{1,100}$/, 'must be a resp_, chatcmpl- or msg_ id'),
});

/** Model list: one body that the OpenAI and the Anthropic clients both read. */
export const ModelEntry = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  type: z.literal('model'),
  display_name: z.string(),
  created_at: z.string(),
  /** Beyond the spec: `embedding` when the model answers POST /v1/embeddings. */
  capabilities: z.array(z.enum(['embedding'])).optional(),
});
export type ModelEntry = z.infer<typeof ModelEntry>;
export const ModelList = z.object({
  object: z.literal('list'),
  data: z.array(ModelEntry),
  has_more: z.literal(false),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
});
export type ModelList = z.infer<typeof ModelList>;

/** Upstream engines: `openai` base URLs get `/chat/completions` and `/models` appended
 * (OpenAI SDK convention, usually ending in `/v1`); `anthropic` base URLs get
 * `/v1/messages` and `/v1/models` (Anthropic SDK convention). */
const ENGINE_KINDS = ['openai', 'anthropic'] as const;
const EngineName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be 1..32 lowercase letters, digits, "_" or "-"')
  .refine((n) => n !== 'local' && n !== 'box', 'the names "local" (embedded engine) and "box" (built-in test engine) are reserved');
export const UpsertEngineBody = z.strictObject({
  name: EngineName,
  kind: z.enum(ENGINE_KINDS),
  base_url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  api_key: z.string().min(1).max(4096).nullish(),
  /** Default true: the model list is fetched first (5 s), and a failure answers 400 naming the problem; false stores it untested. */
  verify: z.boolean().optional(),
});
export type UpsertEngineBody = z.infer<typeof UpsertEngineBody>;
export const EngineParams = z.object({ name: EngineName });

/** An upstream's failure in words (code: upstream_refused, _not_found, _timeout, _tls, _unauthorized, _not_compatible, _error). */
const EngineError = z.object({ code: z.string(), message: z.string(), at: z.string() });
export type EngineError = z.infer<typeof EngineError>;

export const EngineInfo = z.object({
  name: z.string(),
  kind: z.enum(['local', 'openai', 'anthropic', 'test']),
  base_url: z.string().nullable(),
  has_api_key: z.boolean(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  /** Found on a loopback port by discovery (not stored; DELETE dismisses it). */
  discovered: z.boolean().optional(),
  /** Why its model list failed the last time it was read or tested (null once it answers again). */
  last_error: EngineError.nullable().optional(),
});
export type EngineInfo = z.infer<typeof EngineInfo>;

export const DiscoveryBody = z.strictObject({ enabled: z.boolean() });
export const DiscoveryState = z.object({
  enabled: z.boolean(),
  allowed: z.boolean(),
  probes: z.array(z.object({ name: z.string(), port: z.number().int(), product: z.string() })),
});

/** POST /v1/engines/{name}/test: the upstream's model list, now. */
export const EngineTest = z.object({ name: z.string(), ok: z.boolean(), models: z.number().int(), error: EngineError.nullable() });
export type EngineTest = z.infer<typeof EngineTest>;

/** Embedded engine models: added from a local path or downloaded from a URL. */
export const AddLocalModelBody = z.union(
  [
    z.strictObject({
      path: z.string().min(1).max(4096),
      name: z
        .string()
        .regex(/^[A-Za-z0-9._-]{1,128}$/)
        .nullish(),
    }),
    z.strictObject({
      url: z.url({ protocol: /^https?$/ }),
      name: z
        .string()
        .regex(/^[A-Za-z0-9._-]{1,128}$/)
        .nullish(),
    }),
  ],
  { error: 'send {path} (a GGUF file on this machine) or {url} (to download one)' },
);
export type AddLocalModelBody = z.infer<typeof AddLocalModelBody>;
export const LocalModelParams = z.object({ model: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/) });
export const DownloadParams = z.object({ download_id: z.string().regex(/^dl_[0-9a-f-]{36}$/) });

export const LocalModel = z.object({
  id: z.string(),
  name: z.string(),
  file: z.string(),
  size_bytes: z.number().int(),
  loaded: z.boolean(),
  created_at: z.string(),
});
export type LocalModel = z.infer<typeof LocalModel>;

export const DownloadJob = z.object({
  id: z.string(),
  url: z.string(),
  name: z.string(),
  status: z.enum(['running', 'completed', 'failed']),
  bytes_done: z.number().int(),
  bytes_total: z.number().int().nullable(),
  model_id: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DownloadJob = z.infer<typeof DownloadJob>;

/** One webhook delivery attempt (GET /v1/responses/{id}/deliveries). */
const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  round: z.number().int(),
  at: z.string(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number(),
  error: z.string().nullable(),
});

export const DeliveryList = z.object({
  object: z.literal('list'),
  data: z.array(DeliveryAttempt),
  url: z.string().nullable(),
  state: z.enum(['pending', 'delivered', 'failed', 'none']),
  rounds_done: z.number().int(),
  next_round_at: z.string().nullable(),
});
export type DeliveryList = z.infer<typeof DeliveryList>;
export const Redelivery = z.object({ response_id: z.string(), state: z.literal('pending') });
export const WebhookSecret = z.object({ webhook_secret: z.string() });

/** The catalog of models the embedded engine can pull (inference/catalog/catalog.ts holds the list). */
export const CatalogEntry = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  parameters: z.string(),
  quantization: z.string(),
  size_bytes: z.number().int(),
  licence: z.string(),
  source_url: z.url(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
});
export type CatalogEntry = z.infer<typeof CatalogEntry>;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits');
export const PullBody = z.union(
  [
    z.strictObject({ catalog_id: z.string().min(1).max(128), name: z.string().max(128).nullish(), sha256: sha256.nullish() }),
    z.strictObject({
      url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
      name: z.string().max(128).nullish(),
      sha256: sha256.nullish(),
    }),
  ],
  { error: 'send either catalog_id (GET /v1/local-models/catalog) or url' },
);
export const PullParams = z.object({ pull_id: z.string().regex(/^pull_[0-9a-f]{32}$/, 'must be a pull id (pull_...)') });

/** A model pull (ours, beyond the spec: contract/routes.ts). */
export const ModelPull = z.object({
  id: z.string(),
  object: z.literal('model.pull'),
  state: z.enum(['downloading', 'verifying', 'completed', 'failed', 'cancelled']),
  catalog_id: z.string().nullable(),
  url: z.string(),
  name: z.string(),
  model_id: z.string().nullable(),
  bytes_done: z.number().int(),
  bytes_total: z.number().int().nullable(),
  sha256: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ModelPull = z.infer<typeof ModelPull>;
