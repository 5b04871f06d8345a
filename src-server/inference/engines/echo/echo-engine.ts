import type { NativeRequest, NativeResult } from '../../native.js';
import { emptyUsage } from '../../native.js';
import type { Engine, EngineModel } from '../engine.js';
import { schemaInstance } from './schema-instance.js';

export const ECHO_ENGINE = 'box';
const ECHO_MODEL = 'echo';
const ECHO_MODEL_ID = `${ECHO_ENGINE}/${ECHO_MODEL}`;
const ECHO_DISPLAY_NAME = 'Echo: built-in test model (repeats your input; not a language model)';
/** Fixed creation time so the model list is deterministic. */
const CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

/** Tokens as the echo engine counts them: runs of word characters or single other non-space characters. */
const echoTokens = (text: string): string[] => text.match(/\w+|[^\s\w]/g) ?? [];

/**
 * The built-in test engine, always present, so a fresh install answers (issue 10). It never
 * pretends to be a language model: its answer is `Echo: <the last user message>`, a
 * schema-valid instance for `json_schema` formats, cut at the token cap with stop
 * `max_tokens` (status `incomplete`). Deterministic and instant: webhooks, background
 * requests, structured output and clients can be exercised offline.
 */
export class EchoEngine implements Engine {
  readonly name = ECHO_ENGINE;
  readonly kind = 'test' as const;

  async listModels(): Promise<EngineModel[]> {
    return [{ id: ECHO_MODEL_ID, created: CREATED, displayName: ECHO_DISPLAY_NAME }];
  }

  hasModel(model: string): boolean {
    return model === ECHO_MODEL;
  }

  async generate(_model: string, req: NativeRequest): Promise<NativeResult> {
    const lastUser = [...req.messages].reverse().find((m) => m.role === 'user')?.text ?? '';
    const full = req.format.type === 'json_schema' ? JSON.stringify(schemaInstance(req.format.schema, lastUser)) : `Echo: ${lastUser}`;
    const inputTokens = req.messages.reduce((n, m) => n + echoTokens(m.text).length, 0);
    const { text, count, cut } = capTokens(full, req.maxOutputTokens);
    return { text, stop: cut ? 'max_tokens' : 'end', usage: { ...emptyUsage(), inputTokens, outputTokens: count } };
  }

  status(): Record<string, unknown> {
    return { engine: ECHO_ENGINE, kind: 'test', models: [ECHO_MODEL_ID] };
  }

  async close(): Promise<void> {}
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
