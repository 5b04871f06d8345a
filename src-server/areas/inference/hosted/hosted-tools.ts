import type { NativeHostedTool, NativeTool } from '../native.js';
import { refuse } from '../adapters/common.js';
import { computerFunction } from './hosted-computer.js';

/**
 * Hosted tools of the wire styles → native (pure; issue 34). Responses' `code_interpreter`
 * and `shell` (container_auto / container_reference), Messages' code execution server
 * tool: the engine sees each as a function tool, the gateway runs its calls in a box
 * (hosted-loop.ts). A container is `auto` (a box made for the caller, reused by the
 * conversation) or a box id.
 */
type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);

const RESPONSES_TYPES = new Set(['code_interpreter', 'shell', 'computer_use_preview']);
const CODE_EXECUTION_TYPES = new Set(['code_execution_20250825', 'code_execution_20260120']);
const COMPUTER_TYPES = new Set(['computer_20250124', 'computer_20241022', 'computer_20251124']);
const MESSAGES_TYPES = new Set([...CODE_EXECUTION_TYPES, ...COMPUTER_TYPES]);

/** A Responses tool type the gateway runs itself (responsesTools leaves them to this file). */
export const isResponsesHosted = (t: Rec) => RESPONSES_TYPES.has(String(t.type));
/** A Messages server tool the gateway runs itself (messagesTools leaves them to this file). */
export const isMessagesHosted = (t: Rec) => MESSAGES_TYPES.has(String(t.type));

const SANDBOX = 'a sandbox (a Linux microVM of its own; files and installed packages persist for the conversation)';

/** The function each hosted tool is to the engine. */
function hostedFunction(h: NativeHostedTool): NativeTool {
  if (h.kind === 'computer') return computerFunction(h.name, h.display?.width ?? 1024, h.display?.height ?? 768);
  if (h.kind === 'code_interpreter')
    return {
      name: h.name,
      description: `Runs Python code in a stateful Jupyter kernel in ${SANDBOX}. Answers stdout, stderr, the last expression's value and errors; variables persist between calls.`,
      parameters: { type: 'object', properties: { code: { type: 'string', description: 'The Python code to run.' } }, required: ['code'] },
    };
  if (h.kind === 'shell')
    return {
      name: h.name,
      description: `Runs shell commands in ${SANDBOX}, one after another. Answers each command's stdout, stderr and exit code.`,
      parameters: {
        type: 'object',
        properties: {
          commands: { type: 'array', items: { type: 'string' }, description: 'The commands to run (each through /bin/sh -c).' },
          timeout_ms: { type: 'integer', description: 'Time limit of each command in milliseconds.' },
        },
        required: ['commands'],
      },
    };
  return {
    name: h.name,
    description: `Runs a bash command in ${SANDBOX}. Answers its stdout, stderr and return code.`,
    parameters: { type: 'object', properties: { command: { type: 'string', description: 'The bash command to run.' } }, required: ['command'] },
  };
}

const BOX_ID = /^box_[0-9a-f-]{36}$/;

function boxId(v: unknown, param: string): { boxId: string } {
  if (typeof v !== 'string' || !BOX_ID.test(v)) refuse(param, `${param} must be a box id (box_...): containers here are boxes.`);
  return { boxId: v };
}

/** Responses: `{type: "code_interpreter", container: {type: "auto"} | "<box id>"}`, `{type: "shell", environment?: container_auto | container_reference}`. */
export function responsesHosted(b: Rec): NativeHostedTool[] {
  const tools = Array.isArray(b.tools) ? (b.tools as unknown[]) : [];
  const out: NativeHostedTool[] = [];
  tools.forEach((t, i) => {
    if (!isRec(t) || !isResponsesHosted(t)) return;
    const at = `tools[${i}]`;
    if (out.some((h) => h.kind === t.type)) refuse(at, `Two "${String(t.type)}" tools were sent.`);
    if (t.type === 'computer_use_preview') {
      out.push({ kind: 'computer', name: 'computer', container: computerContainer(t.container, `${at}.container`), wire: t, display: display(t, at, '') });
      return;
    }
    if (t.type === 'code_interpreter') {
      const c = t.container;
      const container = isRec(c) && c.type === 'auto' ? 'auto' : typeof c === 'string' ? boxId(c, `${at}.container`) : null;
      if (!container) refuse(`${at}.container`, `${at}.container must be {"type": "auto"} or a box id.`);
      out.push({ kind: 'code_interpreter', name: 'code_interpreter', container, wire: t });
      return;
    }
    const env = t.environment;
    let container: NativeHostedTool['container'];
    if (env === undefined || env === null || (isRec(env) && env.type === 'container_auto')) container = 'auto';
    else if (isRec(env) && env.type === 'container_reference') container = boxId(env.container_id, `${at}.environment.container_id`);
    else
      refuse(
        `${at}.environment.type`,
        `${at}.environment must be {"type": "container_auto"} or {"type": "container_reference", "container_id": "<box id>"}: local shells run on the client, send a function tool.`,
      );
    out.push({ kind: 'shell', name: 'shell', container, wire: t });
  });
  return out;
}

/**
 * Messages: `{type: "code_execution_20250825", name: "code_execution"}` and the computer tool
 * `{type: "computer_20250124", name: "computer", display_width_px, display_height_px}`; the
 * request's `container` (a box id, or `{id}`) names the box both use.
 */
export function messagesHosted(b: Rec): NativeHostedTool[] {
  const tools = Array.isArray(b.tools) ? (b.tools as unknown[]) : [];
  const code = tools.findIndex((t) => isRec(t) && CODE_EXECUTION_TYPES.has(String(t.type)));
  const computer = tools.findIndex((t) => isRec(t) && COMPUTER_TYPES.has(String(t.type)));
  const c = b.container;
  if (code < 0 && computer < 0) {
    if (c !== undefined && c !== null) refuse('container', 'container is used by the code execution and computer tools, neither of which was sent.');
    return [];
  }
  const container = c === undefined || c === null ? 'auto' : isRec(c) ? boxId(c.id, 'container.id') : boxId(c, 'container');
  const out: NativeHostedTool[] = [];
  if (code >= 0) out.push({ kind: 'bash_code_execution', name: 'bash_code_execution', container, wire: tools[code] as Rec });
  if (computer >= 0) {
    const t = tools[computer] as Rec;
    if (t.name !== undefined && t.name !== 'computer') refuse(`tools[${computer}].name`, `tools[${computer}].name must be "computer".`);
    out.push({ kind: 'computer', name: 'computer', container, wire: t, display: display(t, `tools[${computer}]`, '_px') });
  }
  return out;
}

/** Responses' computer tool: `container` (Box's: `{type: "auto"}`, the default, or a box id) names its desktop box. */
function computerContainer(c: unknown, param: string): NativeHostedTool['container'] {
  if (c === undefined || c === null || (isRec(c) && c.type === 'auto')) return 'auto';
  if (typeof c === 'string') return boxId(c, param);
  return refuse(param, `${param} must be {"type": "auto"} or a desktop box id.`);
}

/** The screen size a computer tool announces (`display_width`/`display_height`, Messages with `_px`). */
function display(t: Rec, at: string, suffix: string): { width: number; height: number } {
  const size = (k: string) => {
    const v = t[`display_${k}${suffix}`];
    if (v === undefined || v === null) return k === 'width' ? 1024 : 768;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 16384)
      refuse(`${at}.display_${k}${suffix}`, `${at}.display_${k}${suffix} must be a positive integer.`);
    return v;
  };
  return { width: size('width'), height: size('height') };
}

/** Responses' `tool_choice: {type: "code_interpreter" | "shell"}`: that hosted tool, which must be among the tools. */
export function hostedChoice(b: Rec, type: string): { name: string } {
  const sent = Array.isArray(b.tools) && (b.tools as unknown[]).some((t) => isRec(t) && t.type === type);
  if (!sent) refuse('tool_choice', `tool_choice names the ${type} tool, which is not among the tools.`);
  return { name: type === 'computer_use_preview' ? 'computer' : type };
}

/** Hosted functions join the client's tools; a client tool of the same name is refused. */
export function withHosted(tools: NativeTool[], hosted: NativeHostedTool[]): NativeTool[] {
  for (const h of hosted)
    if (tools.some((t) => t.name === h.name)) refuse('tools', `A function tool is named "${h.name}", which the hosted ${h.kind} tool uses.`);
  return [...tools, ...hosted.map(hostedFunction)];
}

export const isHostedCall = (hosted: NativeHostedTool[] | undefined, name: string) => hosted?.find((h) => h.name === name);
