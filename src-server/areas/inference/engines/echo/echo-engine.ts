import type { DeltaSink, NativeEmbedRequest, NativeEmbeddings, NativeImage, NativeRequest, NativeResult, NativeToolCall } from '../../native.js';
import { imageInfo } from '../../images/image-info.js';
import { emptyUsage, newCallId } from '../../native.js';
import type { Engine, EngineModel } from '../engine.js';
import { echoEmbedding } from './echo-embedding.js';
import { schemaInstance } from './schema-instance.js';

export const ECHO_ENGINE = 'box';
const ECHO_MODEL = 'echo';
const ECHO_MODEL_ID = `${ECHO_ENGINE}/${ECHO_MODEL}`;
const ECHO_DISPLAY_NAME =
  'Echo: built-in test model (repeats your input; offered tools, it calls the first one, then answers with the tool result; not a language model)';
/** Fixed creation time so the model list is deterministic. */
const CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

/** Tokens as the echo engine counts them: runs of word characters or single other non-space characters. */
const echoTokens = (text: string): string[] => text.match(/\w+|[^\s\w]/g) ?? [];

/**
 * The built-in test engine, always present, so a fresh install answers (issue 10). It never
 * pretends to be a language model: its answer is `Echo: <the last user message>` (with a
 * description of each image it carries: describeImage), a
 * schema-valid instance for `json_schema` formats, cut at the token cap with stop
 * `max_tokens` (status `incomplete`). Deterministic and instant: webhooks, background
 * requests, structured output and clients can be exercised offline.
 *
 * Tool mode (issue 24): with tools offered (and tool_choice not `none`) it calls the first
 * tool (or the one tool_choice names) once, with schema-valid arguments derived from the
 * last user message (a hosted tool, issue 34: the message itself, as code or command);
 * when the conversation ends in tool results, it answers with their text (joined by newlines). So an agent loop runs to its end without a model. Streamed,
 * it sends its answer one token at a time.
 */
export class EchoEngine implements Engine {
  readonly name = ECHO_ENGINE;
  readonly kind = 'test' as const;

  async listModels(): Promise<EngineModel[]> {
    return [{ id: ECHO_MODEL_ID, created: CREATED, displayName: ECHO_DISPLAY_NAME, embeds: true }];
  }

  hasModel(model: string): boolean {
    return model === ECHO_MODEL;
  }

  async generate(_model: string, req: NativeRequest, signal?: AbortSignal, onDelta?: DeltaSink): Promise<NativeResult> {
    const lastUserTurn = [...req.messages].reverse().find((m) => m.role === 'user');
    const lastUser = lastUserTurn?.text ?? '';
    const inputTokens = req.messages.reduce(
      (n, m) => n + echoTokens(m.text).length + (m.toolCalls ?? []).reduce((k, c) => k + echoTokens(`${c.name} ${c.arguments}`).length, 0),
      0,
    );
    const call = toolCall(req, lastUser);
    if (call) {
      onDelta?.({ type: 'tool_call', index: 0, id: call.id, name: call.name });
      for (const piece of splitHalf(call.arguments)) onDelta?.({ type: 'tool_args', index: 0, delta: piece });
      return { text: '', stop: 'tool_calls', toolCalls: [call], usage: { ...emptyUsage(), inputTokens, outputTokens: echoTokens(call.arguments).length + 1 } };
    }
    const results = trailingToolResults(req);
    const full =
      results !== null
        ? results
        : req.format.type === 'json_schema'
          ? JSON.stringify(schemaInstance(req.format.schema, lastUser))
          : ['Echo:', lastUser, ...(lastUserTurn?.images ?? []).map(describeImage)].filter(Boolean).join(' ');
    const { text, count, cut } = capTokens(full, req.maxOutputTokens);
    if (onDelta) {
      for (const piece of text.match(/\s*(\w+|[^\s\w])|\s+$/g) ?? []) {
        if (signal?.aborted) break;
        onDelta({ type: 'text', text: piece });
        await new Promise<void>((r) => setImmediate(r)); // one token per turn of the event loop, as an engine sends them
      }
    }
    return { text, stop: cut ? 'max_tokens' : 'end', usage: { ...emptyUsage(), inputTokens, outputTokens: count } };
  }

  /** Deterministic vectors (echo-embedding.ts); token-id inputs are embedded as their ids joined by spaces. */
  async embed(_model: string, req: NativeEmbedRequest): Promise<NativeEmbeddings> {
    const texts = req.inputs.map((i) => (typeof i === 'string' ? i : i.join(' ')));
    return {
      vectors: texts.map((t) => echoEmbedding(t, req.dimensions)),
      inputTokens: req.inputs.reduce((n, i) => n + (typeof i === 'string' ? echoTokens(i).length : i.length), 0),
    };
  }

  status(): Record<string, unknown> {
    return { engine: ECHO_ENGINE, kind: 'test', models: [ECHO_MODEL_ID] };
  }

  async close(): Promise<void> {}
}

/**
 * What the echo says of an image it received: `[image: image/png, 412 bytes, 32x32]` (the
 * size its header states), or `[image: <url>, not fetched]`.
 */
function describeImage(i: NativeImage): string {
  if (i.kind === 'url') return `[image: ${i.url}, not fetched]`;
  const bytes = Buffer.from(i.data, 'base64');
  const info = imageInfo(bytes);
  return `[image: ${i.mediaType}, ${bytes.length} bytes${info ? `, ${info.width}x${info.height}` : ''}]`;
}

/** The longest prefix of `text` holding at most `cap` echo tokens. */
function capTokens(text: string, cap: number | undefined): { text: string; count: number; cut: boolean } {
  const re = /\w+|[^\s\w]/g;
  let count = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (cap !== undefined && count >= cap) return { text: text.slice(0, end), count, cut: true };
    count++;
    end = m.index + m[0].length;
  }
  return { text, count, cut: false };
}

/** The call tool mode makes, or null (no tools, choice `none`, or the conversation ends in tool results). */
function toolCall(req: NativeRequest, lastUser: string): NativeToolCall | null {
  const tools = req.tools ?? [];
  if (!tools.length || req.toolChoice === 'none' || req.messages[req.messages.length - 1]?.role === 'tool') return null;
  const choice = req.toolChoice;
  const tool = (typeof choice === 'object' ? tools.find((t) => t.name === choice.name) : undefined) ?? tools[0]!;
  const hosted = req.hosted?.find((h) => h.name === tool.name);
  if (hosted) return { id: newCallId(), name: tool.name, arguments: JSON.stringify(HOSTED_ARGS[hosted.kind](lastUser)) };
  return { id: newCallId(), name: tool.name, arguments: JSON.stringify(schemaInstance(tool.parameters, lastUser) ?? {}) };
}

/**
 * A hosted tool (issue 34) gets the last user message as it is: the code, or the command.
 * The computer tool (issue 37): the message is the action as JSON (`{"type": "click", "x":
 * 10, "y": 20}`, OpenAI's or Anthropic's shape); anything else takes a screenshot.
 */
const HOSTED_ARGS: Record<NonNullable<NativeRequest['hosted']>[number]['kind'], (text: string) => Record<string, unknown>> = {
  code_interpreter: (code) => ({ code }),
  shell: (command) => ({ commands: [command] }),
  bash_code_execution: (command) => ({ command }),
  computer: (text) => {
    try {
      const v: unknown = JSON.parse(text);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // not JSON: look at the screen
    }
    return { type: 'screenshot' };
  },
};

/** The text of the tool results the conversation ends with, or null when it does not end in one. */
function trailingToolResults(req: NativeRequest): string | null {
  const out: string[] = [];
  for (let i = req.messages.length - 1; i >= 0 && req.messages[i]!.role === 'tool'; i--) out.unshift(req.messages[i]!.text);
  return out.length ? out.join('\n') : null;
}

function splitHalf(s: string): string[] {
  const h = Math.ceil(s.length / 2);
  return s.length < 2 ? [s] : [s.slice(0, h), s.slice(h)];
}
