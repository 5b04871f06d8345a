import { namespacedName, type NativeTool, type NativeToolChoice } from '../native.js';
import { hostedChoice, isMessagesHosted, isResponsesHosted } from '../hosted/hosted-tools.js';
import { refuse } from './common.js';

/**
 * Function tools and tool choice of the three wire styles → native (pure). Beyond the
 * spec, which lists tools as a limitation: function tools only; hosted tools (web search,
 * file search, computer use, server tools) are refused naming the tool.
 */
type Rec = Record<string, unknown>;
const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);

function tool(name: unknown, description: unknown, parameters: unknown, strict: unknown, param: string): NativeTool {
  if (typeof name !== 'string' || !NAME.test(name)) refuse(`${param}.name`, `${param}.name must be 1..128 letters, digits, "_", ".", ":" or "-".`);
  if (parameters !== undefined && parameters !== null && !isRec(parameters)) refuse(param, `${param}'s parameter schema must be a JSON-schema object.`);
  const t: NativeTool = { name, parameters: (parameters as Rec | null | undefined) ?? { type: 'object', properties: {} } };
  if (typeof description === 'string') t.description = description;
  if (typeof strict === 'boolean') t.strict = strict;
  return t;
}

function list(tools: unknown, param = 'tools'): Rec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) refuse(param, `${param} must be an array.`);
  return tools.map((t, i) => (isRec(t) ? t : refuse(`${param}[${i}]`, `${param}[${i}] must be an object.`)));
}

function checkNames(tools: NativeTool[]) {
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (seen.has(t.name)) refuse(`tools[${i}].name`, `Two tools are named "${t.name}".`);
    seen.add(t.name);
  });
}

/** `count`: the tools sent, hosted ones included. */
function checkChoice(count: number, choice: NativeToolChoice): NativeToolChoice {
  if (choice === 'required' && !count) refuse('tool_choice', 'tool_choice asks for a tool call, but no tools were sent.');
  return choice;
}

function named(tools: NativeTool[], name: unknown, param: string): NativeToolChoice {
  if (typeof name !== 'string') refuse(param, `${param} must name a tool.`);
  if (!tools.some((t) => t.name === name)) refuse(param, `${param} names "${name}", which is not among the tools.`);
  return { name };
}

const MODES = ['auto', 'none', 'required'];

/**
 * A Responses `namespace` tool (`{type: "namespace", name, description, tools: [functions]}`):
 * its functions, each named `<namespace>__<name>` for the engines, the namespace's
 * description before their own. Calls go back to the client with `name` and `namespace` apart.
 */
function namespaceTools(t: Rec, param: string): NativeTool[] {
  if (typeof t.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(t.name)) refuse(`${param}.name`, `${param}.name must be 1..64 letters, digits, "_" or "-".`);
  const ns = t.name;
  return list(t.tools, `${param}.tools`).map((f, j) => {
    const at = `${param}.tools[${j}]`;
    if (f.type !== 'function') refuse(`${at}.type`, `A namespace holds function tools here: ${at} is a "${String(f.type)}" tool.`);
    const description = [typeof t.description === 'string' ? t.description : '', typeof f.description === 'string' ? f.description : '']
      .filter(Boolean)
      .join('\n\n');
    const fn = tool(f.name, description || undefined, f.parameters, f.strict, at);
    return { ...fn, name: namespacedName(ns, fn.name), namespace: ns };
  });
}

/** Responses: `{type: "function", name, description, parameters, strict}` and `namespace` tools of them; choice strings or `{type: "function", name}`. */
export function responsesTools(b: Rec): { tools: NativeTool[]; toolChoice: NativeToolChoice } {
  const tools = list(b.tools).flatMap((t, i) => {
    if (t.type === 'namespace') return namespaceTools(t, `tools[${i}]`);
    if (isResponsesHosted(t)) return []; // run by the gateway (hosted/hosted-tools.ts)
    if (t.type !== 'function')
      refuse(
        `tools[${i}].type`,
        `tools[${i}] is a hosted "${String(t.type)}" tool, which this gateway does not run: send function or namespace tools (Codex CLI: set web_search = "disabled").`,
      );
    return [tool(t.name, t.description, t.parameters, t.strict, `tools[${i}]`)];
  });
  checkNames(tools);
  const c = b.tool_choice;
  let toolChoice: NativeToolChoice = 'auto';
  if (typeof c === 'string')
    toolChoice = MODES.includes(c) ? (c as NativeToolChoice) : refuse('tool_choice', 'tool_choice must be auto, none, required or a function.');
  else if (isRec(c))
    toolChoice = isResponsesHosted(c)
      ? hostedChoice(b, String(c.type))
      : c.type === 'function'
        ? named(tools, typeof c.namespace === 'string' && typeof c.name === 'string' ? namespacedName(c.namespace, c.name) : c.name, 'tool_choice.name')
        : refuse('tool_choice.type', 'tool_choice must name a function tool.');
  return { tools, toolChoice: checkChoice(tools.length + list(b.tools).filter(isResponsesHosted).length, toolChoice) };
}

/** Chat Completions: `{type: "function", function: {name, description, parameters, strict}}`; `{type: "function", function: {name}}`. */
export function chatTools(b: Rec): { tools: NativeTool[]; toolChoice: NativeToolChoice } {
  const tools = list(b.tools).map((t, i) => {
    if (t.type !== 'function' || !isRec(t.function))
      refuse(`tools[${i}].type`, `Only function tools are supported: tools[${i}] must be {type: "function", function: {...}}.`);
    const f = t.function as Rec;
    return tool(f.name, f.description, f.parameters, f.strict, `tools[${i}].function`);
  });
  checkNames(tools);
  const c = b.tool_choice;
  let toolChoice: NativeToolChoice = 'auto';
  if (typeof c === 'string')
    toolChoice = MODES.includes(c) ? (c as NativeToolChoice) : refuse('tool_choice', 'tool_choice must be auto, none, required or a function.');
  else if (isRec(c)) toolChoice = named(tools, isRec(c.function) ? c.function.name : undefined, 'tool_choice.function.name');
  return { tools, toolChoice: checkChoice(tools.length, toolChoice) };
}

/** Messages: `{name, description, input_schema}` (type absent or "custom"); `{type: auto|any|none|tool, name, disable_parallel_tool_use}`. */
export function messagesTools(b: Rec): { tools: NativeTool[]; toolChoice: NativeToolChoice; parallel: boolean } {
  const tools = list(b.tools).flatMap((t, i) => {
    if (isMessagesHosted(t)) return []; // run by the gateway (hosted/hosted-tools.ts)
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      refuse(`tools[${i}].type`, `Only client tools are supported: tools[${i}] is a "${String(t.type)}" server tool.`);
    }
    return [tool(t.name, t.description, t.input_schema, undefined, `tools[${i}]`)];
  });
  checkNames(tools);
  const c = b.tool_choice;
  let toolChoice: NativeToolChoice = 'auto';
  let parallel = true;
  if (c !== undefined && c !== null) {
    if (!isRec(c)) refuse('tool_choice', 'tool_choice must be an object such as {"type": "auto"}.');
    if (c.type === 'auto' || c.type === 'none') toolChoice = c.type;
    else if (c.type === 'any') toolChoice = 'required';
    else if (c.type === 'tool') toolChoice = named(tools, c.name, 'tool_choice.name');
    else refuse('tool_choice.type', 'tool_choice.type must be auto, any, tool or none.');
    parallel = c.disable_parallel_tool_use !== true;
  }
  return { tools, toolChoice: checkChoice(tools.length + list(b.tools).filter(isMessagesHosted).length, toolChoice), parallel };
}

/** A call's arguments as the JSON text every style carries; objects are serialized. */
export function argumentsText(v: unknown, param: string): string {
  if (typeof v === 'string') return v;
  if (isRec(v)) return JSON.stringify(v);
  return refuse(param, `${param} must be a JSON text or object.`);
}
