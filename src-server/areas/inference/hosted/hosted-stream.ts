import type { HostedEvent } from '../native.js';
import { codeOf } from './hosted-calls.js';
import { codeInterpreterItem, computerItems, hostedResultBlock, serverToolUse, shellCallItem, shellOutputItem, shellOutputs } from './hosted-view.js';

type Ev = (type: string, body: Record<string, unknown>) => string;

/**
 * The Responses stream of hosted calls (the openai client's events). code_interpreter:
 * `output_item.added`, `code_interpreter_call.in_progress`, `code_interpreter_call_code.delta`
 * and `.done`, `.interpreting`, `.completed`, `output_item.done`. shell: the `shell_call`
 * item (`output_item.added`, `shell_call_command.added`/`.done` per command,
 * `output_item.done`), then its `shell_call_output` item (`output_item.added`,
 * `shell_call_output_content.delta`/`.done` per command, `output_item.done`). computer: the
 * `computer_call` item, then its `computer_call_output` (issue 37).
 */
export class HostedResponsesFrames {
  /** Output index of each call's (first) item, by `step/index`. */
  private at = new Map<string, number>();

  constructor(
    private responseId: () => string,
    private ev: Ev,
    private nextOutput: () => number,
  ) {}

  frames(e: HostedEvent): string {
    const { call, step, index } = e;
    const id = this.responseId();
    const key = `${step}/${index}`;
    if (call.kind === 'code_interpreter') {
      if (e.type === 'started') this.at.set(key, this.nextOutput());
      const output_index = this.at.get(key)!;
      const item = codeInterpreterItem(id, step, index, call, e.type === 'done' ? undefined : 'in_progress');
      const ref = { item_id: item.id, output_index };
      if (e.type === 'started')
        return (
          this.ev('response.output_item.added', { output_index, item }) +
          this.ev('response.code_interpreter_call.in_progress', ref) +
          this.ev('response.code_interpreter_call_code.delta', { ...ref, delta: codeOf(call) }) +
          this.ev('response.code_interpreter_call_code.done', { ...ref, code: codeOf(call) })
        );
      if (e.type === 'running') return this.ev('response.code_interpreter_call.interpreting', ref);
      return this.ev('response.code_interpreter_call.completed', ref) + this.ev('response.output_item.done', { output_index, item });
    }
    if (call.kind === 'computer') {
      // computer_call (added when it starts, done when it ran), then its computer_call_output.
      if (e.type === 'running') return '';
      if (e.type === 'started') {
        const output_index = this.nextOutput();
        this.at.set(key, output_index);
        return this.ev('response.output_item.added', { output_index, item: computerItems(id, step, index, call, 'in_progress').call });
      }
      const cu = computerItems(id, step, index, call);
      const output_index = this.nextOutput();
      return (
        this.ev('response.output_item.done', { output_index: this.at.get(key)!, item: cu.call }) +
        this.ev('response.output_item.added', { output_index, item: cu.output }) +
        this.ev('response.output_item.done', { output_index, item: cu.output })
      );
    }
    if (e.type === 'running') return '';
    if (e.type === 'started') {
      const output_index = this.nextOutput();
      this.at.set(key, output_index);
      const commands = call.commands ?? [];
      return (
        this.ev('response.output_item.added', { output_index, item: shellCallItem(id, step, index, call, 'in_progress') }) +
        commands
          .map(
            (c, command_index) =>
              this.ev('response.shell_call_command.added', { output_index, command_index, command: c.command }) +
              this.ev('response.shell_call_command.done', { output_index, command_index, command: c.command }),
          )
          .join('')
      );
    }
    const callIndex = this.at.get(key)!;
    const output_index = this.nextOutput();
    const out = shellOutputItem(id, step, index, call);
    const outputs = shellOutputs(call);
    return (
      this.ev('response.output_item.done', { output_index: callIndex, item: shellCallItem(id, step, index, call) }) +
      this.ev('response.output_item.added', { output_index, item: shellOutputItem(id, step, index, call, 'in_progress') }) +
      outputs
        .map(
          (o, command_index) =>
            this.ev('response.shell_call_output_content.delta', {
              output_index,
              command_index,
              item_id: out.id,
              delta: { stdout: o.stdout, stderr: o.stderr },
            }) + this.ev('response.shell_call_output_content.done', { output_index, command_index, item_id: out.id, output: [o] }),
        )
        .join('') +
      this.ev('response.output_item.done', { output_index, item: out })
    );
  }
}

/** The Messages stream of a hosted call: its `server_tool_use` block when it starts, its result block when done. */
export function hostedMessagesFrames(e: HostedEvent, block: (content: Record<string, unknown>) => string): string {
  if (e.type === 'started') return block(serverToolUse(e.call));
  if (e.type === 'done') return block(hostedResultBlock(e.call));
  return '';
}
