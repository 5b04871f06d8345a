import type { NativeHostedTool, NativeTool } from '../native.js';
import { refuse } from '../adapters/common.js';

/**
 * Hosted tools of the wire styles → native (pure; issue 34). Responses' `code_interpreter`
 * and `shell` (container_auto / container_reference), Messages' code execution server
 * tool: the engine sees each as a function tool, the gateway runs its calls in a box
 * (hosted-loop.ts). A container is `auto` (a box made for the caller, reused by the
 * conversation) or a box id.
 */
type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);

const RESPONSES_TYPES = new Set(['code_interpreter', 'shell']);
const MESSAGES_TYPES = new Set(['code_execution_20250825', 'code_execution_20260120']);

/** A Responses tool type the gateway runs itself (responsesTools leaves them to this file). */
export const isResponsesHosted = (t: Rec) => RESPONSES_TYPES.has(String(t.type));
/** A Messages server tool the gateway runs itself (messagesTools leaves them to this file). */
export const isMessagesHosted = (t: Rec) => MESSAGES_TYPES.has(String(t.type));

const SANDBOX = 'a sandbox (a Linux microVM of its own; files and installed packages persist for the conversation)';

/** The function each hosted tool is to the engine. */
function hostedFunction(h: NativeHostedTool): NativeTool {
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

/** Messages: `{type: "code_execution_20250825", name: "code_execution"}`; the request's `container` (a box id, or `{id}`) names the box. */
export function messagesHosted(b: Rec): NativeHostedTool[] {
  const tools = Array.isArray(b.tools) ? (b.tools as unknown[]) : [];
  const found = tools.findIndex((t) => isRec(t) && isMessagesHosted(t));
  const c = b.container;
  if (found < 0) {
    if (c !== undefined && c !== null) refuse('container', 'container is used by the code execution tool, which was not sent.');
    return [];
  }
  const container = c === undefined || c === null ? 'auto' : isRec(c) ? boxId(c.id, 'container.id') : boxId(c, 'container');
  return [{ kind: 'bash_code_execution', name: 'bash_code_execution', container, wire: tools[found] as Rec }];
}

/** Responses' `tool_choice: {type: "code_interpreter" | "shell"}`: that hosted tool, which must be among the tools. */
export function hostedChoice(b: Rec, type: string): { name: string } {
  const sent = Array.isArray(b.tools) && (b.tools as unknown[]).some((t) => isRec(t) && t.type === type);
  if (!sent) refuse('tool_choice', `tool_choice names the ${type} tool, which is not among the tools.`);
  return { name: type };
}

/** Hosted functions join the client's tools; a client tool of the same name is refused. */
export function withHosted(tools: NativeTool[], hosted: NativeHostedTool[]): NativeTool[] {
  for (const h of hosted)
    if (tools.some((t) => t.name === h.name)) refuse('tools', `A function tool is named "${h.name}", which the hosted ${h.kind} tool uses.`);
  return [...tools, ...hosted.map(hostedFunction)];
}

export const isHostedCall = (hosted: NativeHostedTool[] | undefined, name: string) => hosted?.find((h) => h.name === name);
