/**
 * The chat view's conversation and the Responses request it becomes (pure, so the page
 * sends exactly what "View as API request" shows). The whole conversation goes as input
 * on every turn: no stored response is needed, and any engine answers it.
 */
export type OutputItem = Record<string, any> & { type: string };

export type Turn =
  | { role: 'user'; text: string; images: string[] }
  | { role: 'assistant'; items: OutputItem[]; status: 'streaming' | 'completed' | 'incomplete' | 'failed'; error?: string; ms?: number }
  | { role: 'tool'; callId: string; name: string; output: string };

export interface ChatOptions {
  model: string;
  codeInterpreter: boolean;
  functionTool: boolean;
  maxTokens: string;
}

const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function inputOf(turn: Turn): unknown[] {
  if (turn.role === 'user') {
    if (!turn.images.length) return [{ role: 'user', content: turn.text }];
    return [
      {
        role: 'user',
        content: [...(turn.text ? [{ type: 'input_text', text: turn.text }] : []), ...turn.images.map((url) => ({ type: 'input_image', image_url: url }))],
      },
    ];
  }
  if (turn.role === 'tool') return [{ type: 'function_call_output', call_id: turn.callId, output: turn.output }];
  if (turn.status === 'failed') return [];
  return turn.items.flatMap((it): unknown[] => {
    if (it.type === 'message') {
      const text = (it.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');
      return text ? [{ role: 'assistant', content: text }] : [];
    }
    if (it.type === 'function_call') return [{ type: 'function_call', call_id: it.call_id, name: it.name, arguments: it.arguments }];
    if (it.type === 'code_interpreter_call')
      return [{ type: 'code_interpreter_call', id: it.id, status: it.status, code: it.code, outputs: it.outputs ?? [], container_id: it.container_id }];
    return [];
  });
}

export function chatRequest(turns: Turn[], o: ChatOptions): { path: string; body: Record<string, unknown> } {
  const tools = [...(o.codeInterpreter ? [{ type: 'code_interpreter', container: { type: 'auto' } }] : []), ...(o.functionTool ? [WEATHER_TOOL] : [])];
  const max = Number(o.maxTokens);
  return {
    path: '/v1/responses',
    body: {
      model: o.model,
      input: turns.flatMap(inputOf),
      stream: true,
      ...(o.maxTokens.trim() && Number.isFinite(max) ? { max_output_tokens: max } : {}),
      ...(tools.length ? { tools } : {}),
    },
  };
}

/** The same request as a curl command (the key stays a placeholder: it is never put in a page). */
export const asCurl = (origin: string, req: { path: string; body: Record<string, unknown> }) =>
  `curl -N ${origin}${req.path} \\\n  -H "Authorization: Bearer $BOX_API_KEY" -H "Content-Type: application/json" \\\n  -d '${JSON.stringify(req.body).replace(/'/g, "'\\''")}'`;

/** Applies one Responses stream event to the assistant's output items (by output_index). */
export function applyEvent(items: OutputItem[], d: Record<string, any>): OutputItem[] {
  const at = d.output_index as number | undefined;
  const next = [...items];
  const edit = (f: (it: OutputItem) => OutputItem) => {
    if (at === undefined) return next;
    next[at] = f(next[at] ?? { type: 'message', content: [{ type: 'output_text', text: '' }] });
    return next;
  };
  switch (d.type) {
    case 'response.output_item.added':
    case 'response.output_item.done':
      return edit(() => d.item);
    case 'response.output_text.delta':
      return edit((it) => {
        const content = [...(it.content ?? [])];
        const last = content.length ? content[content.length - 1] : { type: 'output_text', text: '' };
        content[Math.max(0, content.length - 1)] = { ...last, text: (last.text ?? '') + d.delta };
        return { ...it, content };
      });
    case 'response.function_call_arguments.delta':
      return edit((it) => ({ ...it, arguments: (it.arguments ?? '') + d.delta }));
    case 'response.code_interpreter_call_code.delta':
      return edit((it) => ({ ...it, code: (it.code ?? '') + d.delta }));
    case 'response.code_interpreter_call.interpreting':
      return edit((it) => ({ ...it, status: 'interpreting' }));
    case 'response.completed':
    case 'response.incomplete':
      return (d.response?.output as OutputItem[] | undefined) ?? items;
    default:
      return items;
  }
}
