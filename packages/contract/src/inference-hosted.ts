import { z } from 'zod';

/**
 * Hosted tools (issue 34): the tools, output items, blocks and stream events of the calls
 * the gateway runs in boxes, in the shapes of the official `openai` (ResponseCodeInterpreterToolCall,
 * ResponseFunctionShellToolCall, ResponseFunctionShellToolCallOutput) and `@anthropic-ai/sdk`
 * (ServerToolUseBlock, BashCodeExecutionToolResultBlock) types. A container is a box.
 */
export const CodeInterpreterTool = z.object({ type: z.literal('code_interpreter'), container: z.union([z.string(), z.object({ type: z.literal('auto') })]) });
export const ShellTool = z.object({
  type: z.literal('shell'),
  environment: z.union([z.object({ type: z.literal('container_auto') }), z.object({ type: z.literal('container_reference'), container_id: z.string() })]),
});
/** A Messages request's code execution tool, as GET /v1/responses/{id} lists it. */
export const CodeExecutionTool = z.object({ type: z.string().startsWith('code_execution_'), name: z.literal('code_execution') });

export const CodeInterpreterCallItem = z.object({
  type: z.literal('code_interpreter_call'),
  id: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete', 'interpreting', 'failed']),
  code: z.string().nullable(),
  outputs: z.array(z.union([z.object({ type: z.literal('logs'), logs: z.string() }), z.object({ type: z.literal('image'), url: z.string() })])).nullable(),
  /** The box the code ran in. */
  container_id: z.string(),
});

const ItemStatus = z.enum(['in_progress', 'completed', 'incomplete']);

export const ShellCallItem = z.object({
  type: z.literal('shell_call'),
  id: z.string(),
  call_id: z.string(),
  action: z.object({ commands: z.array(z.string()), max_output_length: z.number().int().nullable(), timeout_ms: z.number().int().nullable() }),
  environment: z.object({ type: z.literal('container_reference'), container_id: z.string() }).nullable(),
  status: ItemStatus,
});

const ShellOutput = z.object({
  stdout: z.string(),
  stderr: z.string(),
  outcome: z.union([z.object({ type: z.literal('timeout') }), z.object({ type: z.literal('exit'), exit_code: z.number().int() })]),
});

export const ShellCallOutputItem = z.object({
  type: z.literal('shell_call_output'),
  id: z.string(),
  call_id: z.string(),
  max_output_length: z.number().int().nullable(),
  output: z.array(ShellOutput),
  status: ItemStatus,
});

export const ServerToolUseBlock = z.object({
  type: z.literal('server_tool_use'),
  id: z.string(),
  name: z.enum(['bash_code_execution', 'computer']),
  /** bash: `{command}`; computer: Anthropic's action shape (`{action: "left_click", coordinate: [x, y]}`, ...). */
  input: z.union([z.object({ command: z.string() }), z.looseObject({ action: z.string() })]),
  caller: z.object({ type: z.literal('direct') }),
});

/**
 * Computer use (issue 37), run by the gateway on a desktop box: Responses' tool (OpenAI's
 * `computer_use_preview`, plus Box's `container`), its `computer_call` and
 * `computer_call_output` items (the openai client's ResponseComputerToolCall and
 * ResponseComputerToolCallOutputItem); Messages' computer tool and Box's
 * `computer_tool_result` block (the screenshot, or the error text).
 */
export const ComputerUseTool = z.object({
  type: z.literal('computer_use_preview'),
  display_width: z.number().int(),
  display_height: z.number().int(),
  environment: z.string(),
  container: z.union([z.string(), z.object({ type: z.literal('auto') })]),
});
/** A Messages request's computer tool, as GET /v1/responses/{id} lists it. */
export const MessagesComputerTool = z.object({
  type: z.string().startsWith('computer_'),
  name: z.literal('computer'),
  display_width_px: z.number().int(),
  display_height_px: z.number().int(),
});

export const ComputerCallItem = z.object({
  type: z.literal('computer_call'),
  id: z.string(),
  call_id: z.string(),
  action: z.looseObject({ type: z.string() }),
  pending_safety_checks: z.array(z.never()),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
  /** The desktop box the action ran on. */
  container_id: z.string(),
});

export const ComputerCallOutputItem = z.object({
  type: z.literal('computer_call_output'),
  id: z.string(),
  call_id: z.string(),
  output: z.object({ type: z.literal('computer_screenshot'), image_url: z.string() }),
  acknowledged_safety_checks: z.array(z.never()),
  status: z.enum(['completed', 'incomplete']),
  /** Why the action could not be done (the model read the same). */
  error: z.string().optional(),
});

export const ComputerResultBlock = z.object({
  type: z.literal('computer_tool_result'),
  tool_use_id: z.string(),
  is_error: z.boolean(),
  content: z.array(
    z.union([
      z.object({ type: z.literal('image'), source: z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }) }),
      z.object({ type: z.literal('text'), text: z.string() }),
    ]),
  ),
});

export const BashResultBlock = z.object({
  type: z.literal('bash_code_execution_tool_result'),
  tool_use_id: z.string(),
  content: z.union([
    z.object({
      type: z.literal('bash_code_execution_result'),
      stdout: z.string(),
      stderr: z.string(),
      return_code: z.number().int(),
      content: z.array(z.never()),
    }),
    z.object({ type: z.literal('bash_code_execution_tool_result_error'), error_code: z.string() }),
  ]),
});

const seq = { sequence_number: z.number().int() };
const at = { item_id: z.string(), output_index: z.number().int() };
const ciEvent = (type: string) => z.object({ type: z.literal(type), ...seq, ...at });
const command = { command_index: z.number().int(), output_index: z.number().int() };

/** The Responses stream events of hosted calls (contract/inference-stream.ts joins them to the others). */
export const HostedResponsesEvents = [
  ciEvent('response.code_interpreter_call.in_progress'),
  ciEvent('response.code_interpreter_call.interpreting'),
  ciEvent('response.code_interpreter_call.completed'),
  z.object({ type: z.literal('response.code_interpreter_call_code.delta'), ...seq, ...at, delta: z.string() }),
  z.object({ type: z.literal('response.code_interpreter_call_code.done'), ...seq, ...at, code: z.string() }),
  z.object({ type: z.literal('response.shell_call_command.added'), ...seq, ...command, command: z.string() }),
  z.object({ type: z.literal('response.shell_call_command.done'), ...seq, ...command, command: z.string() }),
  z.object({
    type: z.literal('response.shell_call_output_content.delta'),
    ...seq,
    ...command,
    item_id: z.string(),
    delta: z.object({ stdout: z.string().optional(), stderr: z.string().optional() }),
  }),
  z.object({ type: z.literal('response.shell_call_output_content.done'), ...seq, ...command, item_id: z.string(), output: z.array(ShellOutput) }),
] as const;
