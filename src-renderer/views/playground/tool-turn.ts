/**
 * Tools in the playground (issue 24), pure: the tools in each style's shape, the calls an
 * answer makes, and the follow-up request that sends their results.
 */
/** The three wire styles the playground speaks. */
export type Style = 'responses' | 'chat' | 'messages';

interface ToolSpec {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The tools textarea: a JSON array of {name, description, parameters}. */
export function parseTools(text: string): ToolSpec[] | { error: string } {
  try {
    const v = JSON.parse(text) as unknown;
    if (!Array.isArray(v) || v.some((t) => typeof t?.name !== 'string')) return { error: 'Tools must be a JSON array of {name, description, parameters}.' };
    return v as ToolSpec[];
  } catch (e) {
    return { error: `Tools are not valid JSON: ${(e as Error).message}` };
  }
}

export function toolsFor(style: Style, tools: ToolSpec[]): unknown[] {
  const params = (t: ToolSpec) => t.parameters ?? { type: 'object', properties: {} };
  if (style === 'responses') return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: params(t) }));
  if (style === 'chat') return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: params(t) } }));
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: params(t) }));
}

/** The calls an answer (in its style's shape) asks for. */
export function toolCallsOf(style: Style, res: unknown): ToolCall[] {
  const r = res as Record<string, any> | null;
  if (!r) return [];
  if (style === 'responses') {
    return (r.output ?? []).filter((o: any) => o.type === 'function_call').map((o: any) => ({ id: o.call_id, name: o.name, arguments: o.arguments }));
  }
  if (style === 'chat') {
    return (r.choices?.[0]?.message?.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
  }
  return (r.content ?? []).filter((b: any) => b.type === 'tool_use').map((b: any) => ({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }));
}

/** The request that continues `body` (what was sent) after `res` (the answer) with the tools' `results` (by call id). */
export function followUp(style: Style, body: Record<string, any>, res: Record<string, any>, results: Record<string, string>): Record<string, unknown> {
  const calls = toolCallsOf(style, res);
  if (style === 'responses') {
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : [...body.input];
    for (const o of res.output ?? [])
      if (o.type === 'function_call') input.push({ type: 'function_call', call_id: o.call_id, name: o.name, arguments: o.arguments });
    for (const c of calls) input.push({ type: 'function_call_output', call_id: c.id, output: results[c.id] ?? '' });
    return { ...body, input };
  }
  if (style === 'chat') {
    const m = res.choices[0].message;
    const assistant = { role: 'assistant', content: m.content ?? null, tool_calls: m.tool_calls };
    return { ...body, messages: [...body.messages, assistant, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: results[c.id] ?? '' }))] };
  }
  return {
    ...body,
    messages: [
      ...body.messages,
      { role: 'assistant', content: res.content },
      { role: 'user', content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: results[c.id] ?? '' })) },
    ],
  };
}
