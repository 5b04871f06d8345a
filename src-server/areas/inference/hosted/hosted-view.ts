import { createHash } from 'node:crypto';
import type { HostedCall, NativeHostedTool, NativeRequest, NativeResult } from '../native.js';
import { codeOf, commandsOf, timeoutMsOf } from './hosted-calls.js';
import { anthropicInput, computerCallItem, computerOutputItem, computerResultBlock } from './hosted-computer.js';

/**
 * Hosted calls as the wire styles show them (pure): Responses' `code_interpreter_call`,
 * `shell_call` and `shell_call_output` items (the openai client's types), Messages'
 * `server_tool_use` and `bash_code_execution_tool_result` blocks. Ids are stable, the same
 * on every GET and in the stream.
 */
const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 40);

/** The assistant message of round `round` (0: before any hosted call; the one id a response without hosted calls has). */
export const messageItemId = (responseId: string, round: number) => `msg_${hash(round === 0 ? responseId : `${responseId}/msg/${round}`)}`;
const itemId = (prefix: string, responseId: string, step: number, index: number) => `${prefix}_${hash(`${responseId}/${prefix}/${step}/${index}`)}`;

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';
const shellStatus = (c: HostedCall): ItemStatus => (c.status === 'completed' ? 'completed' : 'incomplete');

export function codeInterpreterItem(responseId: string, step: number, index: number, c: HostedCall, status?: 'in_progress' | 'interpreting') {
  return {
    type: 'code_interpreter_call' as const,
    id: itemId('ci', responseId, step, index),
    status: status ?? c.status,
    code: codeOf(c),
    outputs: status ? null : (c.outputs ?? []),
    container_id: c.containerId,
  };
}

/** Responses: a computer call's `computer_call` item and its `computer_call_output` (issue 37). */
export const computerItems = (responseId: string, step: number, index: number, c: HostedCall, status?: 'in_progress') => ({
  call: computerCallItem(itemId('cu', responseId, step, index), c, status),
  output: computerOutputItem(itemId('cuo', responseId, step, index), c),
});

export function shellCallItem(responseId: string, step: number, index: number, c: HostedCall, status?: 'in_progress') {
  const timeout = timeoutMsOf(c);
  return {
    type: 'shell_call' as const,
    id: itemId('sh', responseId, step, index),
    call_id: c.id,
    action: { commands: commandsOf(c), max_output_length: null, timeout_ms: timeout },
    environment: { type: 'container_reference' as const, container_id: c.containerId },
    status: status ?? shellStatus(c),
  };
}

/** One output per command: its stdout, stderr and exit (or timeout); a call that never ran gives one with the reason. */
export function shellOutputs(c: HostedCall) {
  const ran = (c.commands ?? []).filter((x) => x.exitCode !== null || x.timedOut);
  if (!ran.length && c.status !== 'completed') return [{ stdout: '', stderr: c.result, outcome: { type: 'exit' as const, exit_code: 1 } }];
  return ran.map((x) => ({
    stdout: x.stdout,
    stderr: x.stderr,
    outcome: x.timedOut ? { type: 'timeout' as const } : { type: 'exit' as const, exit_code: x.exitCode ?? 1 },
  }));
}

export function shellOutputItem(responseId: string, step: number, index: number, c: HostedCall, status?: 'in_progress') {
  return {
    type: 'shell_call_output' as const,
    id: itemId('sho', responseId, step, index),
    call_id: c.id,
    max_output_length: null,
    output: status ? [] : shellOutputs(c),
    status: status ?? shellStatus(c),
  };
}

/** The Responses output items of the hosted rounds: each round's message (when it said something), then its calls. */
export function hostedItems(responseId: string, result: NativeResult): unknown[] {
  const items: unknown[] = [];
  (result.hosted ?? []).forEach((s, step) => {
    if (s.text)
      items.push({
        type: 'message' as const,
        id: messageItemId(responseId, step),
        role: 'assistant' as const,
        status: 'completed' as const,
        content: [{ type: 'output_text' as const, text: s.text, annotations: [], logprobs: [] }],
      });
    s.calls.forEach((c, i) => {
      if (c.kind === 'code_interpreter') items.push(codeInterpreterItem(responseId, step, i, c));
      else if (c.kind === 'computer') {
        const cu = computerItems(responseId, step, i, c);
        items.push(cu.call, cu.output);
      } else items.push(shellCallItem(responseId, step, i, c), shellOutputItem(responseId, step, i, c));
    });
  });
  return items;
}

/** The hosted tools as the Responses object lists them (as sent, normalized). */
export function hostedToolsView(n: Pick<NativeRequest, 'hosted'>): unknown[] {
  return (n.hosted ?? []).map((h: NativeHostedTool) => {
    if (h.kind === 'code_interpreter') return { type: 'code_interpreter', container: h.container === 'auto' ? { type: 'auto' } : h.container.boxId };
    if (h.kind === 'computer' && h.wire.type === 'computer_use_preview')
      return {
        type: 'computer_use_preview',
        display_width: h.display?.width ?? 1024,
        display_height: h.display?.height ?? 768,
        environment: typeof h.wire.environment === 'string' ? h.wire.environment : 'linux',
        container: h.container === 'auto' ? { type: 'auto' } : h.container.boxId,
      };
    if (h.kind === 'computer')
      return { type: String(h.wire.type), name: 'computer', display_width_px: h.display?.width ?? 1024, display_height_px: h.display?.height ?? 768 };
    if (h.kind === 'shell')
      return {
        type: 'shell',
        environment: h.container === 'auto' ? { type: 'container_auto' } : { type: 'container_reference', container_id: h.container.boxId },
      };
    return { type: String(h.wire.type), name: 'code_execution' };
  });
}

/** Messages: a hosted call's `server_tool_use` block (the computer tool's input in Anthropic's action shape). */
export const serverToolUse = (c: HostedCall) => ({
  type: 'server_tool_use' as const,
  id: c.id,
  name: c.kind === 'computer' ? ('computer' as const) : ('bash_code_execution' as const),
  input: c.kind === 'computer' ? anthropicInput(c.action ?? { type: 'screenshot' }) : { command: commandsOf(c)[0] ?? '' },
  caller: { type: 'direct' as const },
});

/** Messages: a hosted call's result block: the computer tool's screenshot, or the bash result. */
export const hostedResultBlock = (c: HostedCall) => (c.kind === 'computer' ? computerResultBlock(c) : bashResult(c));

/** Messages: its `bash_code_execution_tool_result` block (an error block when it never ran). */
function bashResult(c: HostedCall) {
  const x = c.commands?.[0];
  const ran = x && (x.exitCode !== null || x.timedOut);
  return {
    type: 'bash_code_execution_tool_result' as const,
    tool_use_id: c.id,
    content: ran
      ? { type: 'bash_code_execution_result' as const, stdout: x.stdout, stderr: x.stderr, return_code: x.timedOut ? 124 : (x.exitCode ?? 1), content: [] }
      : { type: 'bash_code_execution_tool_result_error' as const, error_code: 'unavailable' as const },
  };
}

/** Messages: the hosted rounds' blocks (text, then each call and its result). */
export function hostedBlocks(result: NativeResult) {
  return (result.hosted ?? []).flatMap((s) => [
    ...(s.text ? [{ type: 'text' as const, text: s.text }] : []),
    ...s.calls.flatMap((c) => [serverToolUse(c), hostedResultBlock(c)]),
  ]);
}
