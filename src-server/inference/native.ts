/**
 * The one native request type every wire style converts into, and the one result every
 * engine produces. Adapters (adapters/*) are pure converters in and out of these;
 * engines (engines/*) only ever see these.
 */
export type WireStyle = 'responses' | 'chat' | 'messages';

export interface NativeMessage {
  role: 'system' | 'user' | 'assistant';
  text: string;
}

export type NativeFormat = { type: 'text' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean; description?: string };

interface NativeParams {
  temperature?: number;
  topP?: number;
  reasoningEffort?: 'low' | 'medium' | 'high';
  user?: string;
}

export interface NativeRequest {
  /** `<engine>/<model>` as the caller named it. */
  model: string;
  messages: NativeMessage[];
  params: NativeParams;
  format: NativeFormat;
  /** Cap on generated tokens; undefined means the engine's own limit. */
  maxOutputTokens?: number;
}

interface NativeUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from a prompt cache (upstream cache reads). */
  cachedInputTokens: number;
  /** Input tokens written to a prompt cache (upstream cache writes). */
  cacheWriteInputTokens: number;
  reasoningTokens: number;
}

export interface NativeResult {
  text: string;
  /** `end`: the model finished; `max_tokens`: cut at the cap, `text` is partial. */
  stop: 'end' | 'max_tokens';
  usage: NativeUsage;
}

export const emptyUsage = (): NativeUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  reasoningTokens: 0,
});

/** Lifecycle of a stored request (the Responses API's status values). */
export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface StoredError {
  code: string;
  message: string;
}
