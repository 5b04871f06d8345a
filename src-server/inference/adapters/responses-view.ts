import { createHash } from 'node:crypto';
import type { StoredResponse } from '../store/responses-repo.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Stable id of the one output message item (the same on every GET). */
const outputItemId = (responseId: string) => `msg_${createHash('sha256').update(responseId).digest('hex').slice(0, 40)}`;

/**
 * The Responses-shaped object for any stored request (all three styles): what
 * GET /v1/responses/{id} returns and what a completion webhook carries. `output` is
 * always an array; once finished it holds one assistant message (partial when incomplete).
 * `metadata` adds supercache counters as strings; `webhook_token` is never echoed.
 */
export function responseObject(r: StoredResponse) {
  const finished = r.status === 'completed' || r.status === 'incomplete';
  const n = r.native;
  const u = r.result?.usage;
  const { webhook_token: _token, ...metadata } = r.metadata;
  return {
    id: r.id,
    object: 'response' as const,
    created_at: seconds(r.createdAt),
    status: r.status,
    background: r.background,
    completed_at: finished && r.completedAt ? seconds(r.completedAt) : null,
    error: r.error ? { code: r.error.code, message: r.error.message } : null,
    incomplete_details: r.status === 'incomplete' ? { reason: 'max_output_tokens' as const } : null,
    instructions: (r.echo.instructions as string | null | undefined) ?? null,
    max_output_tokens: n.maxOutputTokens ?? null,
    model: n.model,
    output:
      finished && r.result
        ? [
            {
              type: 'message' as const,
              id: outputItemId(r.id),
              role: 'assistant' as const,
              status: r.status === 'completed' ? ('completed' as const) : ('incomplete' as const),
              content: [{ type: 'output_text' as const, text: r.result.text, annotations: [], logprobs: [] }],
            },
          ]
        : [],
    parallel_tool_calls: false,
    previous_response_id: null,
    reasoning: (r.echo.reasoning as object | undefined) ?? { effort: n.params.reasoningEffort ?? null, summary: null },
    service_tier: 'default',
    store: true,
    temperature: n.params.temperature ?? 1,
    text: { format: n.format.type === 'json_schema' ? { ...n.format } : { type: 'text' } },
    tool_choice: 'none',
    tools: [],
    top_p: n.params.topP ?? 1,
    truncation: 'disabled',
    usage: u
      ? {
          input_tokens: u.inputTokens,
          input_tokens_details: { cached_tokens: u.cachedInputTokens, cache_write_tokens: u.cacheWriteInputTokens },
          output_tokens: u.outputTokens,
          output_tokens_details: { reasoning_tokens: u.reasoningTokens },
          total_tokens: u.inputTokens + u.outputTokens,
        }
      : null,
    user: (r.echo.user as string | null | undefined) ?? n.params.user ?? null,
    metadata: {
      ...metadata,
      supercached_input_tokens: String(u?.cachedInputTokens ?? 0),
      supercache_write_input_tokens: String(u?.cacheWriteInputTokens ?? 0),
    },
  };
}
