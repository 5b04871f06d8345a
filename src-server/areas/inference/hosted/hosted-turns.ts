import type { NativeImage, NativeMessage, NativeResult } from '../native.js';
import { canonicalAction, screenshotParts } from './hosted-computer.js';

/**
 * Hosted calls as conversation turns (pure): what the engine sees of a finished hosted
 * call (the call, then its result as a tool turn), and the wire items and blocks a client
 * sends back when it replays a conversation that had hosted calls.
 */
type Rec = Record<string, unknown>;

/** The turns of a result's hosted rounds: each an assistant turn with its calls, then one tool turn per call. */
export function hostedTurns(r: Pick<NativeResult, 'hosted'>): NativeMessage[] {
  const out: NativeMessage[] = [];
  for (const s of r.hosted ?? []) {
    out.push({ role: 'assistant', text: s.text, toolCalls: s.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) });
    for (const c of s.calls) {
      // The computer tool's result carries its screenshot (the upstream adapters place it where their style takes images).
      const shot = c.screenshot ? screenshotImage(c.screenshot) : null;
      out.push({
        role: 'tool',
        text: c.result,
        toolCallId: c.id,
        toolName: c.name,
        ...(c.status === 'failed' ? { isError: true } : {}),
        ...(shot ? { images: [shot] } : {}),
      });
    }
  }
  return out;
}

function screenshotImage(dataUrl: string): NativeImage | null {
  const p = screenshotParts(dataUrl);
  return p ? { kind: 'base64', mediaType: p.mediaType, data: p.data } : null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

function addCall(out: NativeMessage[], call: { id: string; name: string; arguments: string }) {
  const last = out[out.length - 1];
  if (last?.role === 'assistant') (last.toolCalls ??= []).push(call);
  else out.push({ role: 'assistant', text: '', toolCalls: [call] });
}

/**
 * Responses input items of hosted calls (a client replaying the output): `code_interpreter_call`
 * (call and its logs), `shell_call`, `shell_call_output`. False for any other item.
 */
export function hostedInputItem(out: NativeMessage[], item: Rec): boolean {
  if (item.type === 'code_interpreter_call') {
    const id = str(item.id);
    addCall(out, { id, name: 'code_interpreter', arguments: JSON.stringify({ code: str(item.code) }) });
    const logs = Array.isArray(item.outputs) ? (item.outputs as Rec[]).map((o) => (o?.type === 'logs' ? str(o.logs) : '[image]')).join('\n') : '';
    out.push({ role: 'tool', text: logs, toolCallId: id, toolName: 'code_interpreter' });
    return true;
  }
  if (item.type === 'computer_call') {
    const action = item.action && typeof item.action === 'object' ? canonicalAction(item.action as Rec) : { type: 'screenshot' };
    addCall(out, { id: str(item.call_id), name: 'computer', arguments: JSON.stringify(action) });
    return true;
  }
  if (item.type === 'computer_call_output') {
    const o = (item.output ?? {}) as Rec;
    const img = typeof o.image_url === 'string' ? screenshotImage(o.image_url) : null;
    out.push({
      role: 'tool',
      text: 'Done. The screenshot of the screen after it follows.',
      toolCallId: str(item.call_id),
      toolName: 'computer',
      ...(img ? { images: [img] } : {}),
    });
    return true;
  }
  if (item.type === 'shell_call') {
    const action = (item.action ?? {}) as Rec;
    addCall(out, { id: str(item.call_id), name: 'shell', arguments: JSON.stringify({ commands: Array.isArray(action.commands) ? action.commands : [] }) });
    return true;
  }
  if (item.type === 'shell_call_output') {
    const outputs = Array.isArray(item.output) ? (item.output as Rec[]) : [];
    out.push({ role: 'tool', text: outputs.map((o) => shellText(o)).join('\n'), toolCallId: str(item.call_id), toolName: 'shell' });
    return true;
  }
  return false;
}

function shellText(o: Rec): string {
  const outcome = (o.outcome ?? {}) as Rec;
  const end = outcome.type === 'timeout' ? 'timed out' : `exit code ${String(outcome.exit_code ?? '?')}`;
  return [str(o.stdout), str(o.stderr), `(${end})`].filter(Boolean).join('\n');
}

/**
 * Messages assistant blocks of the code execution tool (a client replaying the answer):
 * `server_tool_use` is a call; `bash_code_execution_tool_result` its result, answered in
 * `results` (they follow the assistant turn). False for any other block.
 */
export function hostedBlock(msg: NativeMessage, results: NativeMessage[], blk: Rec): boolean {
  if (blk.type === 'server_tool_use') {
    (msg.toolCalls ??= []).push({ id: str(blk.id), name: str(blk.name), arguments: JSON.stringify(blk.input ?? {}) });
    return true;
  }
  if (blk.type === 'computer_tool_result') {
    const shots = Array.isArray(blk.content) ? (blk.content as Rec[]) : [];
    const images = shots.flatMap((b) => {
      const src = (b?.source ?? {}) as Rec;
      return b?.type === 'image' && typeof src.data === 'string'
        ? [{ kind: 'base64' as const, mediaType: str(src.media_type) || 'image/png', data: src.data }]
        : [];
    });
    results.push({
      role: 'tool',
      text: 'Done. The screenshot of the screen after it follows.',
      toolCallId: str(blk.tool_use_id),
      toolName: 'computer',
      ...(images.length ? { images } : {}),
    });
    return true;
  }
  if (blk.type === 'bash_code_execution_tool_result') {
    const c = (blk.content ?? {}) as Rec;
    const text =
      c.type === 'bash_code_execution_result'
        ? [str(c.stdout), str(c.stderr), `(return code ${String(c.return_code)})`].filter(Boolean).join('\n')
        : `error: ${str(c.error_code)}`;
    results.push({ role: 'tool', text, toolCallId: str(blk.tool_use_id), toolName: 'bash_code_execution' });
    return true;
  }
  return false;
}
