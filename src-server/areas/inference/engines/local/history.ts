import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions, ChatModelResponse } from 'node-llama-cpp';
import { parsedArguments, type NativeMessage, type NativeRequest } from '../../native.js';

/**
 * Native messages → node-llama-cpp chat history, ending in a model turn to generate
 * into. A trailing assistant message is a prefill: generation continues it, and only
 * the new text is returned. Tool calls become the model turn's function calls, each with
 * the result of the tool turn that answers it; an assistant turn after tool results
 * continues that same model turn (the chat template renders calls and results its way).
 */
export function toChatHistory(messages: NativeMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const calls = new Map<string, ChatModelFunctionCall>();
  let afterTools: ChatModelResponse | null = null;
  for (const m of messages) {
    if (m.role === 'tool') {
      const call = m.toolCallId ? calls.get(m.toolCallId) : undefined;
      if (call) call.result = m.text;
      else history.push({ type: 'user', text: m.text }); // a result for a call this history does not hold
      continue;
    }
    if (m.role === 'assistant') {
      const target: ChatModelResponse = afterTools ?? { type: 'model', response: [] };
      if (!afterTools) history.push(target);
      if (m.text) target.response.push(m.text);
      for (const c of m.toolCalls ?? []) {
        const fc: ChatModelFunctionCall = { type: 'functionCall', name: c.name, params: parsedArguments(c), result: '' };
        calls.set(c.id, fc);
        target.response.push(fc);
      }
      afterTools = m.toolCalls?.length ? target : null;
      continue;
    }
    afterTools = null;
    history.push(m.role === 'system' ? { type: 'system', text: m.text } : { type: 'user', text: m.text });
  }
  const last = history[history.length - 1];
  if (last?.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}

/** The tools the model may call now (tool_choice `none`: none; a named choice: only that one). */
export function functionsOf(req: NativeRequest): ChatModelFunctions | undefined {
  if (!req.tools?.length || req.toolChoice === 'none') return undefined;
  const choice = req.toolChoice;
  const tools = typeof choice === 'object' ? req.tools.filter((t) => t.name === choice.name) : req.tools;
  return Object.fromEntries(tools.map((t) => [t.name, { description: t.description, params: t.parameters as never }]));
}
