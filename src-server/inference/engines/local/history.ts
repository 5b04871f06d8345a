import type { ChatHistoryItem } from 'node-llama-cpp';
import type { NativeMessage } from '../../native.js';

/**
 * Native messages → node-llama-cpp chat history, ending in a model turn to generate
 * into. A trailing assistant message is a prefill: generation continues it, and only
 * the new text is returned.
 */
export function toChatHistory(messages: NativeMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m) =>
    m.role === 'system' ? { type: 'system', text: m.text } : m.role === 'user' ? { type: 'user', text: m.text } : { type: 'model', response: [m.text] },
  );
  if (history[history.length - 1]?.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}
