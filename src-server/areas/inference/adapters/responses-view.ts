import { createHash } from 'node:crypto';
import { callName } from '../native.js';
import { hostedItems, hostedToolsView, messageItemId } from '../hosted/hosted-view.js';
import { isHostedCall } from '../hosted/hosted-tools.js';
import type { StoredResponse } from '../store/responses-repo.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Stable ids of the output items (the same on every GET, and in the stream). */
export const callItemId = (responseId: string, i: number) => `fc_${createHash('sha256').update(`${responseId}/${i}`).digest('hex').slice(0, 40)}`;

/** Tools and choice as the Responses API writes them (requests without tools answer as before: none). */
function toolsView(n: StoredResponse['native']) {
  const tools: unknown[] = [];
  const spaces = new Map<string, unknown[]>();
  for (const t of n.tools ?? []) {
    if (isHostedCall(n.hosted, t.name)) continue; // shown as sent, below
    const fn = {
      type: 'function' as const,
      name: callName(t.name, n.tools).name,
      description: t.description ?? null,
      parameters: t.parameters,
      strict: t.strict ?? null,
    };
    if (!t.namespace) tools.push(fn);
    else if (spaces.has(t.namespace)) spaces.get(t.namespace)!.push(fn);
    else {
      const inner = [fn];
      spaces.set(t.namespace, inner);
      tools.push({ type: 'namespace' as const, name: t.namespace, tools: inner });
    }
  }
  tools.push(...hostedToolsView(n));
  if (!tools.length) return { tools, tool_choice: 'none' as unknown, parallel_tool_calls: false };
  const c = n.toolChoice ?? 'auto';
  const hosted = typeof c === 'string' ? undefined : isHostedCall(n.hosted, c.name);
  const choice = typeof c === 'string' ? c : hosted ? { type: hosted.kind } : { type: 'function', name: c.name };
  return { tools, tool_choice: choice, parallel_tool_calls: n.parallelToolCalls ?? true };
}

/** The output items: the assistant message (when it said something, or called nothing), then one function_call per call. */
function outputItems(r: StoredResponse) {
  const result = r.result!;
  const calls = result.toolCalls ?? [];
  const items: unknown[] = hostedItems(r.id, result);
  if (result.text || !calls.length) {
    items.push({
      type: 'message' as const,
      id: messageItemId(r.id, result.hosted?.length ?? 0),
      role: 'assistant' as const,
      status: r.status === 'incomplete' ? ('incomplete' as const) : ('completed' as const),
      content: [{ type: 'output_text' as const, text: result.text, annotations: [], logprobs: [] }],
    });
  }
  calls.forEach((c, i) =>
    items.push({
      type: 'function_call' as const,
      id: callItemId(r.id, i),
      call_id: c.id,
      ...callName(c.name, r.native.tools),
      arguments: c.arguments,
      status: 'completed' as const,
    }),
  );
  return items;
}

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
    incomplete_details: r.status === 'incomplete' ? { reason: r.result?.hostedLimit ? ('max_tool_calls' as const) : ('max_output_tokens' as const) } : null,
    instructions: (r.echo.instructions as string | null | undefined) ?? null,
    max_output_tokens: n.maxOutputTokens ?? null,
    model: n.model,
    output: finished && r.result ? outputItems(r) : [],
    ...toolsView(n),
    previous_response_id: (r.echo.previous_response_id as string | undefined) ?? null,
    reasoning: (r.echo.reasoning as object | undefined) ?? { effort: n.params.reasoningEffort ?? null, summary: null },
    service_tier: 'default',
    store: r.echo.store !== false,
    temperature: n.params.temperature ?? 1,
    text: { format: n.format.type === 'json_schema' ? { ...n.format } : { type: 'text' } },
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
    // Open Responses' required fields (echoed as sent; the penalties also reach the engines)
    presence_penalty: n.params.presencePenalty ?? 0,
    frequency_penalty: n.params.frequencyPenalty ?? 0,
    top_logprobs: (r.echo.top_logprobs as number | undefined) ?? 0,
    max_tool_calls: n.maxToolCalls ?? null,
    safety_identifier: (r.echo.safety_identifier as string | undefined) ?? null,
    prompt_cache_key: (r.echo.prompt_cache_key as string | undefined) ?? null,
    metadata: {
      ...metadata,
      supercached_input_tokens: String(u?.cachedInputTokens ?? 0),
      supercache_write_input_tokens: String(u?.cacheWriteInputTokens ?? 0),
    },
  };
}
