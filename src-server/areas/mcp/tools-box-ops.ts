import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CheckpointBody } from '@box/contract/boxes';
import { RestoreBody } from '@box/contract/box-ops';
import { boxRef, boxSummary, call, guarded, jsonResult, resolveBoxId } from './api-call.js';
import type { ApiOf } from './ports.js';

const boxPath = (what: string) => z.string().min(2).max(4096).describe(`${what}: an absolute path inside the box, e.g. "/root/project/out".`);

/** Issue 29's box actions as tools: checkpoint and restore in place, new folder, move, delete. */
const OPS_TOOLS = {
  box_checkpoint: {
    title: 'Checkpoint a box',
    description:
      "Save a checkpoint of a box: its disk and memory (running processes included) as they are now, so the box can later go back to exactly this state with box_restore. The box keeps running. Answers the checkpoint's checkpoint_id and name.",
    inputSchema: z.object({ box: boxRef, name: CheckpointBody.shape.name.describe('An optional name for the checkpoint, e.g. "before-upgrade".') }),
    annotations: { destructiveHint: false, openWorldHint: false },
  },
  box_restore: {
    title: 'Restore a box to a checkpoint',
    description:
      'Take a box back to one of its own checkpoints (from box_checkpoint): its disk and memory become what they were then, and it runs from there. ' +
      'Everything the box holds now that is not in the checkpoint (files written since, processes started since) is LOST: checkpoint first with box_checkpoint to keep a way back. The box keeps its id and name; its on_checkpoint_id then names the checkpoint it stands on.',
    inputSchema: z.object({ box: boxRef, checkpoint_id: RestoreBody.shape.checkpoint_id.describe('The checkpoint ("boxcp_..."), taken of this box.') }),
    annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  box_make_dir: {
    title: 'Create a folder in a box',
    description: 'Create a folder inside a box, with any missing parent folders. Fails (already_exists) when something is already at that path.',
    inputSchema: z.object({ box: boxRef, path: boxPath('The folder to create') }),
    annotations: { destructiveHint: false, openWorldHint: false },
  },
  box_move_path: {
    title: 'Rename or move a file or folder in a box',
    description: 'Rename or move a file or folder inside a box. Fails (already_exists) when something is already at the destination: nothing is overwritten.',
    inputSchema: z.object({ box: boxRef, from: boxPath('What to move'), to: boxPath('Where it goes') }),
    annotations: { destructiveHint: false, openWorldHint: false },
  },
  box_delete_path: {
    title: 'Delete a file or folder in a box',
    description:
      'Delete a file, a link (not its target) or a folder inside a box. A folder that is not empty is deleted only with recursive: true (then with everything in it). What is deleted cannot be recovered unless the box was checkpointed.',
    inputSchema: z.object({
      box: boxRef,
      path: boxPath('What to delete'),
      recursive: z.boolean().optional().describe('Delete a non-empty folder with its contents.'),
    }),
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
};

/** box_checkpoint, box_restore, box_make_dir, box_move_path, box_delete_path. */
export function registerBoxOpsTools(server: McpServer, apiOf: ApiOf) {
  server.registerTool('box_checkpoint', OPS_TOOLS.box_checkpoint, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const cp = await call(api, 'POST /v1/boxes/:box_id/checkpoint', { params: { box_id }, body: { name: args.name }, signal: extra.signal });
      return jsonResult({ checkpoint_id: cp.checkpoint_id, name: cp.name, box_id: cp.box_id, status: cp.status });
    }),
  );
  server.registerTool('box_restore', OPS_TOOLS.box_restore, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const box = await call(api, 'POST /v1/boxes/:box_id/restore', { params: { box_id }, body: { checkpoint_id: args.checkpoint_id }, signal: extra.signal });
      return jsonResult(boxSummary(box));
    }),
  );
  server.registerTool('box_make_dir', OPS_TOOLS.box_make_dir, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      return jsonResult(await call(api, 'POST /v1/boxes/:box_id/directories', { params: { box_id }, body: { path: args.path }, signal: extra.signal }));
    }),
  );
  server.registerTool('box_move_path', OPS_TOOLS.box_move_path, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      return jsonResult(
        await call(api, 'POST /v1/boxes/:box_id/paths/move', { params: { box_id }, body: { from: args.from, to: args.to }, signal: extra.signal }),
      );
    }),
  );
  server.registerTool('box_delete_path', OPS_TOOLS.box_delete_path, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const query = { path: args.path, recursive: args.recursive ? ('true' as const) : undefined };
      return jsonResult(await call(api, 'DELETE /v1/boxes/:box_id/paths', { params: { box_id }, query, signal: extra.signal }));
    }),
  );
}
