import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { call, resolveBoxId } from './api-call.js';
import { CONSOLE_TEMPLATE, EGRESS_TEMPLATE, readBoxUri } from './box-uris.js';
import type { ApiOf } from './ports.js';
import type { ToolExtra } from './streams.js';

/**
 * Box's MCP prompts: ready-made starts for the two things agents most often ask a sandbox
 * service for. `box_task` sets up a task in a fresh box; `box_diagnose` hands the model a
 * box's console and egress log as embedded resources (read through the box API, so its access
 * checks apply). Their `box` and `template` arguments complete (resources.ts's handler).
 */
const PROMPT_ARGS_COMPLETED = { box_diagnose: 'box', box_task: 'template' } as const;

export function registerBoxPrompts(server: McpServer, apiOf: ApiOf) {
  server.registerPrompt(
    'box_task',
    {
      title: 'Do a task in a fresh box',
      description: 'Start a task in a new sandbox box: create it, work in it with box_exec and box_run_code, report, and terminate it.',
      argsSchema: {
        task: z.string().min(1).describe('What to do, e.g. "clone this repo and run its tests".'),
        template: z.string().optional().describe('The image to start from (default "debian"; see box_create).'),
      },
    },
    ({ task, template }): GetPromptResult => ({
      description: `A task in a fresh box: ${task.slice(0, 80)}`,
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              `Do this task inside a new Box sandbox, not on this machine: ${task}\n\n` +
              `1. Create a box with box_create${template ? ` (image "${template}")` : ''} and note its box_id.\n` +
              '2. Work in it with box_exec (shell commands), box_run_code (Python or JavaScript) and box_write_file / box_read_file.\n' +
              '3. If a step may break the box, box_fork it first and try on the fork.\n' +
              '4. Report what you did and what you found, with the commands that matter.\n' +
              '5. box_terminate the boxes you made, unless I ask to keep them.',
          },
        },
      ],
    }),
  );

  server.registerPrompt(
    'box_diagnose',
    {
      title: 'Diagnose a box',
      description: "Why is a box misbehaving? Gives the model the box's state, its serial console and its egress log, and asks for a diagnosis.",
      argsSchema: { box: z.string().min(1).describe('The box, by id or name.') },
    },
    async ({ box }, extra): Promise<GetPromptResult> => {
      const api = apiOf(extra as ToolExtra);
      const box_id = await resolveBoxId(api, box, extra.signal);
      const info = await call(api, 'GET /v1/boxes/:box_id', { params: { box_id }, signal: extra.signal });
      const [consoleLog, egressLog] = await Promise.all(
        [CONSOLE_TEMPLATE, EGRESS_TEMPLATE].map((t) => readBoxUri(api, t.replace('{box_id}', box_id), extra.signal)),
      );
      return {
        description: `Diagnose box ${info.name} (${info.status})`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text:
                `Box ${info.name} (${box_id}) is ${info.status}, image ${info.image}, ${info.vcpu_count} vCPU, ${info.memory_mib} MiB. ` +
                'Its serial console and egress log follow. Say what is wrong, the evidence for it, and what to do next ' +
                '(you can inspect it further with box_exec).',
            },
          },
          { role: 'user', content: { type: 'resource', resource: consoleLog! } },
          { role: 'user', content: { type: 'resource', resource: egressLog! } },
        ],
      };
    },
  );
}

/** Completion values of a prompt's argument: live boxes for `box`, templates' images for `template`. */
export async function completePromptArg(apiOf: ApiOf, extra: ToolExtra, prompt: string, arg: string, prefix: string): Promise<string[]> {
  const api = apiOf(extra);
  if (prompt === 'box_diagnose' && arg === PROMPT_ARGS_COMPLETED.box_diagnose) {
    const page = await call(api, 'GET /v1/boxes', { query: { limit: 100 }, signal: extra.signal });
    return page.data
      .filter((b) => b.status !== 'terminated')
      .flatMap((b) => [b.name, b.box_id])
      .filter((v) => v.startsWith(prefix));
  }
  if (prompt === 'box_task' && arg === PROMPT_ARGS_COMPLETED.box_task) {
    const images = (await call(api, 'GET /v1/images', { signal: extra.signal })).data.map((i) => i.name);
    return [...new Set(images)].filter((v) => v.startsWith(prefix));
  }
  return [];
}
