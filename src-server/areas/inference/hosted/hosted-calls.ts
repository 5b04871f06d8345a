import type { BoxRecord } from '../../boxes/ports.js';
import type { CodeExecution } from '@box/contract/code';
import type { HostedCall, NativeHostedTool, NativeToolCall } from '../native.js';
import type { HostedBoxPort } from './box-port.js';
import { canonicalAction, desktopActions } from './hosted-computer.js';

/** Seconds a Python cell may run. */
const CODE_TIMEOUT_S = 300;
/** Seconds a shell command may run when the call names no `timeout_ms`. */
const COMMAND_TIMEOUT_S = 120;
/** What the model is shown of one call's output, at most (the items keep what the box gave). */
const RESULT_CHARS = 20_000;

const clip = (s: string) => (s.length > RESULT_CHARS ? `${s.slice(0, RESULT_CHARS)}\n[... ${s.length - RESULT_CHARS} more characters]` : s);

function args(c: NativeToolCall): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(c.arguments || '{}');
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A new call record (status `incomplete` until it ran) for `box`. */
export function newCall(c: NativeToolCall, h: NativeHostedTool, containerId: string): HostedCall {
  const call: HostedCall = { id: c.id, kind: h.kind, name: h.name, arguments: c.arguments, containerId, status: 'incomplete', result: '' };
  if (h.kind === 'code_interpreter') call.outputs = [];
  else if (h.kind === 'computer') call.action = canonicalAction(args(c));
  else call.commands = commandsOf(call).map((command) => ({ command, stdout: '', stderr: '', exitCode: null, timedOut: false }));
  return call;
}

/** The Python code of a code_interpreter call. */
export const codeOf = (call: Pick<HostedCall, 'arguments'>) => String(args({ id: '', name: '', arguments: call.arguments }).code ?? '');

/** The commands of a shell or bash call. */
export function commandsOf(call: Pick<HostedCall, 'arguments' | 'kind'>): string[] {
  const a = args({ id: '', name: '', arguments: call.arguments });
  if (call.kind === 'bash_code_execution') return [String(a.command ?? '')];
  return Array.isArray(a.commands) ? a.commands.map(String) : typeof a.commands === 'string' ? [a.commands] : [];
}

/** The call's `timeout_ms` (shell), when it names one. */
export function timeoutMsOf(call: Pick<HostedCall, 'arguments'>): number | null {
  const ms = Number(args({ id: '', name: '', arguments: call.arguments }).timeout_ms);
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : null;
}

/** The call's `timeout_ms`, else the default, in whole seconds (at least 1). */
function timeoutS(call: HostedCall): number {
  const ms = timeoutMsOf(call);
  return ms ? Math.max(1, Math.ceil(ms / 1000)) : COMMAND_TIMEOUT_S;
}

/** Runs the call in `box`, filling its outputs, status and the text the model sees. Never throws. */
export async function runCall(port: HostedBoxPort, box: BoxRecord, call: HostedCall): Promise<void> {
  try {
    if (call.kind === 'code_interpreter') codeOutputs(call, await port.runCode(box, codeOf(call), CODE_TIMEOUT_S));
    else if (call.kind === 'computer') {
      const action = call.action ?? { type: 'screenshot' };
      const png = await port.computer(box, desktopActions(action), action.type === 'wait');
      call.screenshot = `data:image/png;base64,${png.toString('base64')}`;
      call.result = `Done: ${action.type}. The screenshot of the screen after it follows.`;
    } else {
      const limit = timeoutS(call);
      for (const c of call.commands ?? []) {
        const r = await port.exec(box, c.command, limit);
        Object.assign(c, r);
      }
      call.result = clip((call.commands ?? []).map(commandText).join('\n\n') || '(no commands)');
    }
    call.status = 'completed';
  } catch (e) {
    call.status = 'failed';
    call.result = `The sandbox could not run this: ${(e as Error).message}`;
    if (call.outputs) call.outputs.push({ type: 'logs', logs: call.result });
  }
}

function commandText(c: NonNullable<HostedCall['commands']>[number]): string {
  const end = c.timedOut ? 'timed out' : `exit code ${c.exitCode ?? '?'}`;
  return [`$ ${c.command}`, c.stdout.trimEnd(), c.stderr.trimEnd(), `(${end})`].filter(Boolean).join('\n');
}

/** A cell's stdout, stderr, results and error as code_interpreter_call outputs: one `logs`, then one `image` per picture. */
function codeOutputs(call: HostedCall, x: CodeExecution) {
  const texts: string[] = [];
  const images: string[] = [];
  if (x.stdout) texts.push(x.stdout.trimEnd());
  if (x.stderr) texts.push(x.stderr.trimEnd());
  for (const r of x.results) {
    if (r['image/png']) images.push(`data:image/png;base64,${r['image/png']}`);
    else if (r['image/jpeg']) images.push(`data:image/jpeg;base64,${r['image/jpeg']}`);
    else if (r['text/plain'] && r.is_main_result) texts.push(r['text/plain']);
  }
  if (x.error) texts.push(`${x.error.name}: ${x.error.value}`);
  const logs = texts.join('\n');
  call.outputs = [...(logs ? [{ type: 'logs' as const, logs }] : []), ...images.map((url) => ({ type: 'image' as const, url }))];
  call.result = clip([logs, ...images.map((_, i) => `[image ${i + 1}]`)].filter(Boolean).join('\n') || '(no output)');
}
