import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LaunchBody, MOUSE_BUTTONS, StartRecordingBody } from '@box/contract/desktop';
import { boxRef, call, guarded, jsonResult, resolveBoxId } from './api-call.js';
import type { ApiOf, BoxApi } from './ports.js';

/**
 * Computer use (issue 37): the screen of a desktop box (made from the `desktop` image) as
 * MCP tools. box_screenshot answers image content; every action tool can answer the
 * screen after it (`screenshot: true`), so a model's look-act-look loop is one call a step.
 */
const coord = z.number().int().min(0).max(16384);
const after = z.boolean().optional().describe('Also answer a screenshot taken after the action (default false).');
const DESKTOP_NOTE =
  'The box must be a desktop box (box_create with image "desktop"). Coordinates are screen pixels from the top left, as box_screenshot shows them.';

const TOOLS = {
  box_screenshot: {
    title: "Screenshot of a box's screen",
    description: `A PNG of the desktop box's screen (with the pointer), as image content, plus its size and the cursor position. ${DESKTOP_NOTE}`,
    inputSchema: z.object({ box: boxRef, scale: z.number().min(0.1).max(1).optional().describe('Shrink the image, 0.1–1 (default 1).') }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  box_click: {
    title: "Click on a box's screen",
    description: `Move the mouse to (x, y) and click: left (default), right or middle button, or a double click. ${DESKTOP_NOTE}`,
    inputSchema: z.object({
      box: boxRef,
      x: coord,
      y: coord,
      button: z.enum(MOUSE_BUTTONS).optional().describe('left (default), right or middle'),
      double: z.boolean().optional().describe('A double click'),
      screenshot: after,
    }),
    annotations: { destructiveHint: true, openWorldHint: false },
  },
  box_type: {
    title: "Type text on a box's screen",
    description: `Type text with the keyboard into the focused window of a desktop box (use box_key for Enter, Tab and shortcuts). ${DESKTOP_NOTE}`,
    inputSchema: z.object({ box: boxRef, text: z.string().min(1).max(10_000), screenshot: after }),
    annotations: { destructiveHint: true, openWorldHint: false },
  },
  box_key: {
    title: "Press keys on a box's screen",
    description: `Press a key or a combination, xdotool names joined by "+": "Return", "Tab", "ctrl+l", "ctrl+shift+t", "alt+F4"; several combos separated by spaces. ${DESKTOP_NOTE}`,
    inputSchema: z.object({ box: boxRef, keys: z.string().min(1).max(200), screenshot: after }),
    annotations: { destructiveHint: true, openWorldHint: false },
  },
  box_scroll: {
    title: "Scroll on a box's screen",
    description: `Scroll the mouse wheel, at (x, y) when given. ${DESKTOP_NOTE}`,
    inputSchema: z.object({
      box: boxRef,
      x: coord.optional(),
      y: coord.optional(),
      direction: z.enum(['up', 'down', 'left', 'right']).optional().describe('down (default), up, left or right'),
      amount: z.number().int().min(1).max(100).optional().describe('Wheel clicks (default 3)'),
      screenshot: after,
    }),
    annotations: { destructiveHint: true, openWorldHint: false },
  },
  box_launch: {
    title: "Start an app on a box's screen",
    description: `Start an application on a desktop box: a desktop entry ("box-browser" is Chromium, "xterm" a terminal) or a program on PATH, with arguments (e.g. app "box-browser", args ["https://example.com"]). ${DESKTOP_NOTE}`,
    inputSchema: z.object({ box: boxRef, app: LaunchBody.shape.app, args: LaunchBody.shape.args, screenshot: after }),
    annotations: { destructiveHint: true, openWorldHint: true },
  },
  box_recording_start: {
    title: "Start recording a box's screen",
    description: `Record the desktop box's screen: a frame every interval_ms (kept only when the screen changed), until box_recording_stop or max_seconds. One recording at a time per box. Answers the recording (its recording_id). ${DESKTOP_NOTE}`,
    inputSchema: z.object({
      box: boxRef,
      interval_ms: StartRecordingBody.shape.interval_ms.describe('Milliseconds between frames, 200–10000 (default 1000).'),
      scale: StartRecordingBody.shape.scale.describe('Scale of the frames, 0.1–1 (default 0.5).'),
      max_seconds: StartRecordingBody.shape.max_seconds.describe('Stops by itself after this many seconds, 1–14400 (default 3600).'),
    }),
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  box_recording_stop: {
    title: "Stop recording a box's screen",
    description: 'Stop a screen recording of a desktop box (a stopped one answers as it is): answers its frames (at_ms, image) and how many images it kept.',
    inputSchema: z.object({ box: boxRef, recording_id: z.string().min(1).max(64).describe('The recording, as box_recording_start answered it ("rec_...").') }),
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  box_recordings: {
    title: "A box's screen recordings",
    description:
      "The box's screen recordings, newest first; with recording_id, that recording with its frames: each frame's time (at_ms since the start) and the image it shows (box_recording_frame gets it).",
    inputSchema: z.object({ box: boxRef, recording_id: z.string().min(1).max(64).optional().describe('One recording, with its frames.') }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  box_recording_frame: {
    title: 'An image of a screen recording',
    description:
      "One stored image of a desktop box's screen recording (a PNG at the recording's scale), as image content: a frame's `image` number from box_recordings.",
    inputSchema: z.object({
      box: boxRef,
      recording_id: z.string().min(1).max(64),
      image: z.number().int().min(0).max(999_999).describe("The image number (a frame's `image`)."),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  box_recording_delete: {
    title: 'Delete a screen recording',
    description: "Delete a desktop box's screen recording and its stored images (a recording still running is stopped first).",
    inputSchema: z.object({ box: boxRef, recording_id: z.string().min(1).max(64) }),
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
};

async function screenshotContent(api: BoxApi, boxId: string, scale: number | undefined, signal: AbortSignal) {
  const res = await api.send({
    method: 'GET',
    path: `/v1/boxes/${encodeURIComponent(boxId)}/desktop/screenshot`,
    query: scale === undefined ? undefined : { scale: String(scale) },
    signal,
  });
  return { type: 'image' as const, data: Buffer.from(await res.arrayBuffer()).toString('base64'), mimeType: 'image/png' };
}

/** box_screenshot, box_click, box_type, box_key, box_scroll, box_launch; the recording tools (registerRecordingTools). */
export function registerDesktopTools(server: McpServer, apiOf: ApiOf) {
  server.registerTool('box_screenshot', TOOLS.box_screenshot, (args, extra) =>
    guarded(async (): Promise<CallToolResult> => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const info = await call(api, 'GET /v1/boxes/:box_id/desktop', { params: { box_id }, signal: extra.signal });
      const image = await screenshotContent(api, box_id, args.scale, extra.signal);
      const summary = { box_id, width: info.width, height: info.height, cursor: info.cursor, focused_window: info.focused_window };
      return { content: [image, { type: 'text', text: JSON.stringify(summary) }], structuredContent: summary };
    }),
  );

  type Action = Parameters<typeof call<'POST /v1/boxes/:box_id/desktop/actions'>>[2]['body'];
  const act = (name: keyof typeof TOOLS, toAction: (a: Record<string, unknown>) => Action) =>
    server.registerTool(name, TOOLS[name] as (typeof TOOLS)['box_click'], (args: Record<string, unknown>, extra) =>
      guarded(async (): Promise<CallToolResult> => {
        const api = apiOf(extra);
        const box_id = await resolveBoxId(api, args.box as string, extra.signal);
        const r = await call(api, 'POST /v1/boxes/:box_id/desktop/actions', { params: { box_id }, body: toAction(args), signal: extra.signal });
        return withScreen(api, box_id, { box_id, ...r }, args.screenshot === true, extra.signal);
      }),
    );
  act('box_click', (a) => ({
    type: 'click',
    x: a.x as number,
    y: a.y as number,
    button: a.button as 'left' | undefined,
    double: a.double as boolean | undefined,
  }));
  act('box_type', (a) => ({ type: 'type', text: a.text as string }));
  act('box_key', (a) => ({ type: 'key', keys: a.keys as string }));
  act('box_scroll', (a) => ({
    type: 'scroll',
    x: a.x as number | undefined,
    y: a.y as number | undefined,
    direction: a.direction as 'down' | undefined,
    amount: a.amount as number | undefined,
  }));

  server.registerTool('box_launch', TOOLS.box_launch, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const r = await call(api, 'POST /v1/boxes/:box_id/desktop/launch', {
        params: { box_id },
        body: { app: args.app, args: args.args },
        signal: extra.signal,
      });
      return withScreen(api, box_id, { box_id, ...r }, args.screenshot === true, extra.signal);
    }),
  );
  registerRecordingTools(server, apiOf);
}

/**
 * Screen recordings (the API's /v1/boxes/{id}/desktop/recordings): start, stop, list or read
 * one, an image of it as image content, delete.
 */
function registerRecordingTools(server: McpServer, apiOf: ApiOf) {
  server.registerTool('box_recording_start', TOOLS.box_recording_start, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const body = { interval_ms: args.interval_ms, scale: args.scale, max_seconds: args.max_seconds };
      return jsonResult(await call(api, 'POST /v1/boxes/:box_id/desktop/recordings', { params: { box_id }, body, signal: extra.signal }));
    }),
  );
  server.registerTool('box_recording_stop', TOOLS.box_recording_stop, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const params = { box_id, recording_id: args.recording_id };
      return jsonResult(await call(api, 'POST /v1/boxes/:box_id/desktop/recordings/:recording_id/stop', { params, signal: extra.signal }));
    }),
  );
  server.registerTool('box_recordings', TOOLS.box_recordings, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      if (args.recording_id !== undefined)
        return jsonResult(
          await call(api, 'GET /v1/boxes/:box_id/desktop/recordings/:recording_id', {
            params: { box_id, recording_id: args.recording_id },
            signal: extra.signal,
          }),
        );
      const { data } = await call(api, 'GET /v1/boxes/:box_id/desktop/recordings', { params: { box_id }, signal: extra.signal });
      // the list without each recording's frames (one recording's can be thousands)
      const recordings = data.map(({ frames, ...r }) => ({ ...r, frame_count: frames.length }));
      return jsonResult({ box_id, recordings });
    }),
  );
  server.registerTool('box_recording_frame', TOOLS.box_recording_frame, (args, extra) =>
    guarded(async (): Promise<CallToolResult> => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const res = await api.send({
        method: 'GET',
        path: `/v1/boxes/${encodeURIComponent(box_id)}/desktop/recordings/${encodeURIComponent(args.recording_id)}/frames/${args.image}`,
        signal: extra.signal,
      });
      const summary = { box_id, recording_id: args.recording_id, image: args.image };
      return {
        content: [
          { type: 'image', data: Buffer.from(await res.arrayBuffer()).toString('base64'), mimeType: 'image/png' },
          { type: 'text', text: JSON.stringify(summary) },
        ],
        structuredContent: summary,
      };
    }),
  );
  server.registerTool('box_recording_delete', TOOLS.box_recording_delete, (args, extra) =>
    guarded(async () => {
      const api = apiOf(extra);
      const box_id = await resolveBoxId(api, args.box, extra.signal);
      const params = { box_id, recording_id: args.recording_id };
      return jsonResult(await call(api, 'DELETE /v1/boxes/:box_id/desktop/recordings/:recording_id', { params, signal: extra.signal }));
    }),
  );
}

async function withScreen(api: BoxApi, boxId: string, value: Record<string, unknown>, screenshot: boolean, signal: AbortSignal): Promise<CallToolResult> {
  const result = jsonResult(value);
  if (screenshot) result.content.push(await screenshotContent(api, boxId, undefined, signal));
  return result;
}
