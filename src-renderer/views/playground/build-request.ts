import { parseTools, toolsFor, type Style } from './tool-turn.js';

/**
 * Builds the wire request of each inference style from one set of playground inputs.
 * Pure, so what the page sends is exactly what it shows as the raw request.
 */
export type { Style };

export interface PlaygroundInput {
  style: Style;
  model: string;
  prompt: string;
  temperature: string;
  topP: string;
  maxTokens: string;
  schemaOn: boolean;
  schemaName: string;
  schemaText: string;
  background: boolean;
  webhookUrl: string | null;
  webhookToken: string;
  /** Beyond the spec (issue 24): stream the answer; offer function tools (a JSON array of {name, description, parameters}). */
  stream?: boolean;
  toolsOn?: boolean;
  toolsText?: string;
}

const STYLE_PATHS: Record<Style, string> = {
  responses: '/v1/responses',
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
};

const num = (s: string) => (s.trim() === '' ? undefined : Number(s));

export function buildRequest(i: PlaygroundInput): { path: string; body: Record<string, unknown> } | { error: string } {
  // An empty prompt costs a model call for nothing (and some engines answer it with an error).
  if (!i.prompt.trim()) return { error: 'Write a prompt first: an empty one is not sent to the model.' };
  let tools: unknown[] | undefined;
  if (i.toolsOn) {
    const parsed = parseTools(i.toolsText ?? '[]');
    if ('error' in parsed) return parsed;
    tools = toolsFor(i.style, parsed);
  }
  let schema: unknown;
  if (i.schemaOn) {
    try {
      schema = JSON.parse(i.schemaText);
    } catch (e) {
      return { error: `JSON schema is not valid JSON: ${(e as Error).message}` };
    }
  }
  const metadata: Record<string, string> = {};
  if (i.webhookUrl) metadata.completion_webhook = i.webhookUrl;
  if (i.webhookUrl && i.webhookToken) metadata.webhook_token = i.webhookToken;
  const streamed = i.stream && !(i.style === 'responses' && i.background);
  const common = {
    model: i.model,
    temperature: num(i.temperature),
    top_p: num(i.topP),
    ...(Object.keys(metadata).length ? { metadata } : {}),
    ...(streamed ? { stream: true } : {}),
    ...(tools ? { tools } : {}),
  };
  const messages = [{ role: 'user', content: i.prompt }];
  let body: Record<string, unknown>;
  if (i.style === 'responses') {
    body = {
      ...common,
      input: i.prompt,
      max_output_tokens: num(i.maxTokens),
      text: schema ? { format: { type: 'json_schema', name: i.schemaName || 'output', schema } } : undefined,
      background: i.background || undefined,
    };
  } else if (i.style === 'chat') {
    body = {
      ...common,
      messages,
      max_completion_tokens: num(i.maxTokens),
      response_format: schema ? { type: 'json_schema', json_schema: { name: i.schemaName || 'output', schema } } : undefined,
    };
  } else {
    body = {
      ...common,
      messages,
      max_tokens: num(i.maxTokens) ?? 256,
      output_config: schema ? { format: { type: 'json_schema', schema } } : undefined,
    };
  }
  return { path: STYLE_PATHS[i.style], body: JSON.parse(JSON.stringify(body)) as Record<string, unknown> };
}

/** The generated text of any of the three response shapes (for the readable view). */
export function outputText(style: Style, res: unknown): string | null {
  const r = res as Record<string, any> | null;
  if (!r) return null;
  if (style === 'responses') {
    const parts = (r.output ?? []).flatMap((o: any) => (o.content ?? []).map((c: any) => c.text ?? '')) as string[];
    return parts.length ? parts.join('') : null;
  }
  if (style === 'chat') return r.choices?.[0]?.message?.content ?? null;
  return (r.content ?? []).map((c: any) => c.text ?? '').join('') || null;
}
