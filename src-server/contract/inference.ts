import { z } from 'zod';

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

const TextFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: JsonSchemaName,
    schema: JsonSchemaObject,
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
], { error: 'must be {type: "text"} or {type: "json_schema", name, schema}' });

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
    .discriminatedUnion('type', [
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
    ], { error: 'must be {type: "text"} or {type: "json_schema", json_schema: {name, schema}}' })
    .nullish(),
  reasoning_effort: z.enum(['low', 'medium', 'high']).nullish(),
  metadata: Metadata.nullish(),
  user: z.string().nullish(),
  n: z.number().int().nullish(),
});
export type ChatBody = z.infer<typeof ChatBody>;

export const MessagesBody = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.unknown() })).min(1),
  temperature: num(0, 1),
  top_p: num(0, 1),
  output_config: z
    .looseObject({
      format: z
        .looseObject({ type: z.literal('json_schema'), schema: JsonSchemaObject, name: JsonSchemaName.nullish() })
        .nullish(),
    })
    .nullish(),
  metadata: Metadata.nullish(),
});
export type MessagesBody = z.infer<typeof MessagesBody>;

export const ResponseIdParams = z.object({
  response_id: z.string().regex(/^(resp_|chatcmpl-|msg_)[A-Za-z0-9_-]{1,100}$/, 'must be a resp_, chatcmpl- or msg_ id'),
});

/** Model list: one body that the OpenAI and the Anthropic clients both read. */
export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  type: 'model';
  display_name: string;
  created_at: string;
}
export interface ModelList {
  object: 'list';
  data: ModelEntry[];
  has_more: false;
  first_id: string | null;
  last_id: string | null;
}

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

export interface EngineInfo {
  name: string;
  kind: 'local' | 'openai' | 'anthropic' | 'test';
  base_url: string | null;
  has_api_key: boolean;
  created_at: string | null;
  updated_at: string | null;
  /** Found on a loopback port by discovery (not stored; DELETE dismisses it). */
  discovered?: boolean;
  /** Why its model list failed the last time it was read or tested (null once it answers again). */
  last_error?: EngineError | null;
}

/** An upstream's failure in words (code: upstream_refused, _not_found, _timeout, _tls, _unauthorized, _not_compatible, _error). */
const EngineError = z.object({ code: z.string(), message: z.string(), at: z.string() });
export type EngineError = z.infer<typeof EngineError>;

/** POST /v1/engines/{name}/test: the upstream's model list, now. */
export const EngineTest = z.object({ name: z.string(), ok: z.boolean(), models: z.number().int(), error: EngineError.nullable() });
export type EngineTest = z.infer<typeof EngineTest>;

/** Embedded engine models: added from a local path or downloaded from a URL. */
export const AddLocalModelBody = z.union([
  z.strictObject({ path: z.string().min(1).max(4096), name: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/).nullish() }),
  z.strictObject({ url: z.url({ protocol: /^https?$/ }), name: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/).nullish() }),
], { error: 'send {path} (a GGUF file on this machine) or {url} (to download one)' });
export type AddLocalModelBody = z.infer<typeof AddLocalModelBody>;
export const LocalModelParams = z.object({ model: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/) });
export const DownloadParams = z.object({ download_id: z.string().regex(/^dl_[0-9a-f-]{36}$/) });

export interface LocalModel {
  id: string;
  name: string;
  file: string;
  size_bytes: number;
  loaded: boolean;
  created_at: string;
}

export interface DownloadJob {
  id: string;
  url: string;
  name: string;
  status: 'running' | 'completed' | 'failed';
  bytes_done: number;
  bytes_total: number | null;
  model_id: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** One webhook delivery attempt (GET /v1/responses/{id}/deliveries). */
interface DeliveryAttempt {
  attempt: number;
  round: number;
  at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface DeliveryList {
  object: 'list';
  data: DeliveryAttempt[];
  url: string | null;
  state: 'pending' | 'delivered' | 'failed' | 'none';
  rounds_done: number;
  next_round_at: string | null;
}
