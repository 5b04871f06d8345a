import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CreateBoxBody, ForkBody, ListBoxesQuery, SleepBody } from '@box/contract/boxes';
import { EgressLogQuery } from '@box/contract/network';
import { boxRef, boxSummary, call, guarded, jsonResult, resolveBoxId } from './api-call.js';
import type { ApiOf } from './ports.js';
import { toolLog } from './logging.js';
import { whileWaiting } from './waiting.js';

const limit = (max: number, def: number) => z.number().int().min(1).max(max).optional().describe(`At most this many (1-${max}, default ${def}).`);
const offset = z.number().int().min(0).max(100000).optional().describe('Skip this many first (paging; default 0).');

/** The tools' definitions, built once and shared by every server made from them. */
const BOX_TOOLS = {
  box_list: {
    title: 'List boxes',
    description:
      'List the sandbox boxes (Linux microVMs) of this Box service, newest first: box_id, name, status (running, sleeping, paused, terminated...), image and size. ' +
      'Terminated boxes stay listed for 24 hours; pass status "running" to see only usable ones. Use a box_id or name from here as the `box` argument of the other box_* tools.',
    inputSchema: z.object({
      status: ListBoxesQuery.shape.status.describe('Only boxes in this state.'),
      search: ListBoxesQuery.shape.search.describe('Only boxes whose name contains this text.'),
      limit: limit(100, 50),
      offset,
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  box_create: {
    title: 'Create a box',
    description:
      'Create a new sandbox box: an isolated Linux microVM (Debian, with a shell, coreutils and python3) in which commands and code can run without touching this machine. ' +
      'Waits until the box runs (usually well under a second once the image is prepared; the very first box of a fresh install may take minutes, reported as progress and as log messages of the image builds) and answers its box_id and name. ' +
      'Names are unique among live boxes. Terminate boxes you no longer need with box_terminate.',
    inputSchema: z.object({
      name: CreateBoxBody.shape.name.describe('A name for the box: 1-63 lowercase letters, digits or "-", e.g. "scratch" or "test-run-2".'),
      image: CreateBoxBody.shape.image.describe('The image to start from (default "debian"; images built with `box image build` by name).'),
      size: CreateBoxBody.shape.size.describe('s: 1 vCPU, 512 MiB (default); m: 2 vCPU, 1 GiB; l: bigger.'),
      app: z.string().min(1).max(128).optional().describe('The app (project) the box belongs to, by name; default "default", created if missing.'),
    }),
    annotations: { destructiveHint: false, openWorldHint: false },
  },
  box_fork: {
    title: 'Fork a box',
    description:
      'Fork a box: checkpoint it and start new boxes that are exact copies of it (files, installed packages, running processes and memory), e.g. to try something risky or several approaches in parallel. ' +
      'The original keeps running unchanged. Answers the new boxes (box_id, name); with count > 1 they are named NAME-1, NAME-2...',
    inputSchema: z.object({
      box: boxRef,
      name: ForkBody.shape.name.describe('The name of the new box (lowercase letters, digits, "-").'),
      count: ForkBody.shape.count.describe('How many copies (1-8, default 1).'),
    }),
    annotations: { destructiveHint: false, openWorldHint: false },
  },
  box_sleep: {
    title: 'Put a box to sleep',
    description:
      "Put a running box to sleep: its memory and processes are saved to disk and it stops using CPU and RAM. Nothing is lost: box_exec, box_read_file and the other tools wake it automatically. Answers the box's new status.",
    inputSchema: z.object({
      box: boxRef,
      wake_at: SleepBody.shape.wake_at.describe('Optional ISO 8601 time (with offset) at which the box wakes by itself.'),
    }),
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  box_terminate: {
    title: 'Terminate a box',
    description:
      'Terminate a box for good: its VM stops and its disk is deleted (files not copied out are lost; fork it first to keep a copy). Its name is free again at once. Answers the box with status "terminated".',
    inputSchema: z.object({ box: boxRef }),
    annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  box_egress_log: {
    title: "A box's network log",
    description:
      "The box's outbound network log, newest first: every HTTP(S) request or connection the box made to the internet (time, method, host, port, path, verdict of its egress policy: allow, deny or respond (answered by the policy itself), HTTP status, bytes). " +
      'Use it to see what a program in the box contacted, or why a download failed (verdict "deny").',
    inputSchema: z.object({
      box: boxRef,
      verdict: EgressLogQuery.shape.verdict.describe('Only entries with this verdict.'),
      host: EgressLogQuery.shape.host.describe('Only entries for this host name.'),
      limit: limit(100, 50),
      offset,
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
};

/** box_list, box_create, box_fork, box_sleep, box_terminate, box_egress_log. */
export function registerBoxTools(server: McpServer, apiOf: ApiOf) {
  server.registerTool('box_list', BOX_TOOLS.box_list, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const page = await call(api, 'GET /v1/boxes', { query: args, signal: extra.signal });
      return jsonResult({ boxes: page.data.map(boxSummary), total: page.total, has_more: page.has_more });
    }),
  );

  server.registerTool('box_create', BOX_TOOLS.box_create, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const app = await call(api, 'POST /v1/apps/find', { body: { name: args.app ?? 'default', mint_if_missing: true }, signal: extra.signal });
      const stop = whileWaiting(api, extra, toolLog(server, extra, 'box_create'), `creating box ${args.name ?? ''}`.trim());
      try {
        const box = await call(api, 'POST /v1/boxes', { body: { app_id: app.id, name: args.name, image: args.image, size: args.size }, signal: extra.signal });
        return jsonResult(boxSummary(box));
      } finally {
        stop();
      }
    }),
  );

  server.registerTool('box_fork', BOX_TOOLS.box_fork, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const r = await call(api, 'POST /v1/boxes/:box_id/fork', { params: { box_id }, body: { name: args.name, count: args.count }, signal: extra.signal });
      return jsonResult({ checkpoint_id: r.checkpoint_id, boxes: r.boxes.map(boxSummary) });
    }),
  );

  server.registerTool('box_sleep', BOX_TOOLS.box_sleep, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const box = await call(api, 'POST /v1/boxes/:box_id/sleep', { params: { box_id }, body: { wake_at: args.wake_at }, signal: extra.signal });
      return jsonResult(boxSummary(box));
    }),
  );

  server.registerTool('box_terminate', BOX_TOOLS.box_terminate, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const box = await call(api, 'POST /v1/boxes/:box_id/terminate', { params: { box_id }, signal: extra.signal });
      return jsonResult(boxSummary(box));
    }),
  );

  server.registerTool('box_egress_log', BOX_TOOLS.box_egress_log, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const { box: _box, ...query } = args;
      const page = await call(api, 'GET /v1/boxes/:box_id/egress-log', { params: { box_id }, query, signal: extra.signal });
      return jsonResult({ entries: page.data, total: page.total, has_more: page.has_more });
    }),
  );
}
