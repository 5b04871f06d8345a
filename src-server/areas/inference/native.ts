/**
 * The one native request type every wire style converts into, and the one result every
 * engine produces. Adapters (adapters/*) are pure converters in and out of these;
 * engines (engines/*) only ever see these.
 */
export type WireStyle = 'responses' | 'chat' | 'messages';

/** A function call the model made (`arguments` is a JSON text, as every style carries it). */
export interface NativeToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * An image a user turn carries: its bytes (base64, one of IMAGE_MEDIA_TYPES) or a URL the
 * engine fetches itself (Box never fetches it). Each style's image part converts to this.
 */
export type NativeImage = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

/**
 * One turn. An assistant turn may carry tool calls (beside or instead of text); a `tool`
 * turn is one tool's result, answering the call `toolCallId`.
 */
export interface NativeMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
  /** Images after the text (user turns). */
  images?: NativeImage[];
  toolCalls?: NativeToolCall[];
  toolCallId?: string;
  /** Name of the tool answered (tool turns; filled from the matching call when known). */
  toolName?: string;
  /** The tool reported an error (Messages' `is_error`). */
  isError?: boolean;
}

/**
 * A function tool the model may call; `parameters` is a JSON schema of its arguments. A
 * function of a Responses `namespace` tool carries its namespace, and its `name` is then
 * qualified (`namespacedName`), so engines and upstreams see one flat, unique name.
 */
export interface NativeTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict?: boolean;
  namespace?: string;
}

/** The flat name of a namespace's function (`crm__lookup`): valid for every upstream's tool names. */
export const namespacedName = (namespace: string, name: string) => `${namespace}__${name}`;

/** A call's name as the Responses API writes it: the function's own name, and its namespace when it has one. */
export function callName(name: string, tools: NativeTool[] | undefined): { name: string; namespace?: string } {
  const ns = tools?.find((t) => t.name === name)?.namespace;
  return ns ? { name: name.slice(ns.length + 2), namespace: ns } : { name };
}

/** `auto`: the model decides; `none`: no call; `required`: at least one call; `{name}`: that tool. */
export type NativeToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type NativeFormat = { type: 'text' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean; description?: string };

interface NativeParams {
  temperature?: number;
  topP?: number;
  reasoningEffort?: 'low' | 'medium' | 'high';
  user?: string;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

export interface NativeRequest {
  /** `<engine>/<model>` as the caller named it. */
  model: string;
  messages: NativeMessage[];
  params: NativeParams;
  format: NativeFormat;
  /** Cap on generated tokens; undefined means the engine's own limit. */
  maxOutputTokens?: number;
  /** Function tools offered (absent or empty: none). */
  tools?: NativeTool[];
  toolChoice?: NativeToolChoice;
  /** Several calls in one turn allowed (default true, as in every style). */
  parallelToolCalls?: boolean;
  /** Responses' `max_tool_calls`: calls beyond it are dropped. */
  maxToolCalls?: number;
  /** Hosted tools the gateway runs in a box (inference/hosted/); each is also in `tools` as a function. */
  hosted?: NativeHostedTool[];
}

/**
 * A hosted tool (issue 34): the model sees a function (`name`), the gateway runs its calls
 * in a box. `container` is `auto` (a box made for the caller) or a box id; `wire` is the
 * tool as the caller sent it (echoed back).
 */
export interface NativeHostedTool {
  kind: 'code_interpreter' | 'shell' | 'bash_code_execution' | 'computer';
  name: string;
  container: 'auto' | { boxId: string };
  wire: Record<string, unknown>;
  /** computer (issue 37): the screen size the tool announced. */
  display?: { width: number; height: number };
}

/** One hosted call the gateway ran: what the model asked, what came back (`result`: the text the model saw). */
export interface HostedCall {
  id: string;
  kind: NativeHostedTool['kind'];
  name: string;
  arguments: string;
  containerId: string;
  status: 'completed' | 'failed' | 'incomplete';
  /** code_interpreter: logs and images (data URLs). */
  outputs?: ({ type: 'logs'; logs: string } | { type: 'image'; url: string })[];
  /** computer: the action (OpenAI's computer_call action shape, hosted-computer.ts) and the screenshot after it (a data URL). */
  action?: Record<string, unknown> & { type: string };
  screenshot?: string;
  /** shell, bash_code_execution: one entry per command. */
  commands?: { command: string; stdout: string; stderr: string; exitCode: number | null; timedOut: boolean }[];
  result: string;
}

/** A hosted call's progress while streaming: `started` (its box known), `running`, `done` (outputs filled). */
export interface HostedEvent {
  type: 'started' | 'running' | 'done';
  call: HostedCall;
  /** The round (index in `NativeResult.hosted`) and the call's index in it. */
  step: number;
  index: number;
}

/** One round of the hosted loop: what the model said beside its hosted calls, and the calls run. */
export interface HostedStep {
  text: string;
  calls: HostedCall[];
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
  /** `end`: the model finished; `max_tokens`: cut at the cap, `text` is partial; `tool_calls`: it called tools. */
  stop: 'end' | 'max_tokens' | 'tool_calls';
  usage: NativeUsage;
  toolCalls?: NativeToolCall[];
  /** Rounds of hosted calls before this answer (inference/hosted/), and the box they ran in. */
  hosted?: HostedStep[];
  containerId?: string;
  /** When that box is terminated if left idle (ms since the epoch). */
  containerExpiresAt?: number;
  /** The hosted loop stopped at its bound: the response is `incomplete`. */
  hostedLimit?: boolean;
}

/**
 * What an engine reports while it generates (streaming): text as it comes, and tool calls
 * (`start` once with its id and name, then argument fragments). Indexes count the calls
 * of this answer from 0. The engine's final NativeResult repeats it all, complete.
 */
export type NativeDelta =
  { type: 'text'; text: string } | { type: 'tool_call'; index: number; id: string; name: string } | { type: 'tool_args'; index: number; delta: string };

export type DeltaSink = (d: NativeDelta) => void;

/** Fresh call ids in the OpenAI style (`call_...`); the other styles reuse them as is. */
export const newCallId = () => `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;

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

/** A call's arguments as an object (Anthropic's `input`); a text that is not JSON gives {}. */
export const parsedArguments = (c: NativeToolCall): unknown => {
  try {
    return JSON.parse(c.arguments || '{}');
  } catch {
    return {};
  }
};

/** An embeddings request (POST /v1/embeddings) as engines see it: texts, or token ids. */
export interface NativeEmbedRequest {
  inputs: (string | number[])[];
  /** Wanted vector length (engines that can shorten theirs; upstreams get it as sent). */
  dimensions?: number;
  user?: string;
}

export interface NativeEmbeddings {
  /** One vector per input, in order. */
  vectors: number[][];
  inputTokens: number;
}

/** `v` cut to its first `dimensions` values (when given) and scaled to length 1 (OpenAI's vectors are unit length). */
export function unitVector(v: readonly number[], dimensions?: number): number[] {
  const cut = dimensions !== undefined && dimensions < v.length ? v.slice(0, dimensions) : [...v];
  const norm = Math.hypot(...cut);
  return norm > 0 ? cut.map((x) => x / norm) : cut;
}
