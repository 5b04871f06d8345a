import { z } from 'zod';
import { idSchema } from './common.js';

/**
 * Desktops for computer-use agents (issue 37): a box made from the `desktop` image has a
 * screen (Xvfb :0 with an Xfce session); these are the requests that look at it and drive
 * its mouse and keyboard. Coordinates are screen pixels, (0,0) top left.
 */

export const DESKTOP_IMAGE = 'desktop';
/** WebSocket endpoints (query `box_id`): the live view's RFB bytes and the browser's DevTools protocol. */
export const DESKTOP_VNC_PATH = '/v1/desktop/vnc';
export const DESKTOP_CDP_PATH = '/v1/desktop/cdp';

const Coord = z.number().int().min(0).max(16384);
export const Point = z.strictObject({ x: Coord, y: Coord });
export type Point = z.infer<typeof Point>;

export const MOUSE_BUTTONS = ['left', 'right', 'middle'] as const;
const Button = z.enum(MOUSE_BUTTONS);

/** xdotool key syntax: names joined by "+", combos separated by spaces ("ctrl+l", "Return", "ctrl+shift+t Tab"). */
const KeyCombo = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*( [A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*)*$/,
    'must be key names joined by "+" (e.g. "ctrl+l", "Return"), combos separated by spaces',
  );

export const DesktopAction = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('move'), x: Coord, y: Coord }),
  z.strictObject({
    type: z.literal('click'),
    /** Where to click; the current cursor position when left out. */
    x: Coord.optional(),
    y: Coord.optional(),
    button: Button.optional(),
    double: z.boolean().optional(),
  }),
  z.strictObject({ type: z.literal('drag'), from: Point, to: Point, button: Button.optional() }),
  z.strictObject({
    type: z.literal('scroll'),
    x: Coord.optional(),
    y: Coord.optional(),
    direction: z.enum(['up', 'down', 'left', 'right']).optional(),
    /** Wheel clicks (default 3). */
    amount: z.number().int().min(1).max(100).optional(),
  }),
  z.strictObject({ type: z.literal('type'), text: z.string().min(1).max(10_000) }),
  z.strictObject({ type: z.literal('key'), keys: KeyCombo }),
]);
export type DesktopAction = z.infer<typeof DesktopAction>;

export const DesktopActionResult = z.object({ type: z.string(), cursor: Point });
export type DesktopActionResult = z.infer<typeof DesktopActionResult>;

export const DesktopWindow = z.object({ id: z.string(), title: z.string(), pid: z.number().int().nullable(), focused: z.boolean() });
export type DesktopWindow = z.infer<typeof DesktopWindow>;

export const DesktopInfo = z.object({
  box_id: z.string(),
  display: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  cursor: Point,
  focused_window: DesktopWindow.nullable(),
  /** The WebSocket endpoint of the live view (RFB, for noVNC), relative to the API's base URL. */
  vnc_path: z.string(),
  /** The WebSocket endpoint of the box browser's DevTools protocol (Playwright `connectOverCDP`). */
  cdp_path: z.string(),
});
export type DesktopInfo = z.infer<typeof DesktopInfo>;

export const ScreenshotQuery = z.object({
  /** Scale factor (0.1–1); 1 (the screen's size) when left out. */
  scale: z
    .string()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'scale must be a number from 0.1 to 1')
    .transform(Number)
    .refine((n) => n >= 0.1 && n <= 1, 'scale must be a number from 0.1 to 1')
    .optional(),
});

export const LaunchBody = z.strictObject({
  /** A desktop entry (e.g. "xterm", "box-browser") or a program on PATH. */
  app: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9._+-]+$/, 'app must be a desktop entry or program name (letters, digits, ".", "_", "+", "-")'),
  args: z.array(z.string().max(4096)).max(64).optional(),
});
export const Launched = z.object({ app: z.string(), pid: z.number().int().nullable() });

export const OpenBody = z.strictObject({
  /** A URL (http, https, file) or an absolute path in the box. */
  target: z
    .string()
    .min(1)
    .max(4096)
    .refine((s) => s.startsWith('/') || /^(https?|file):\/\//i.test(s), 'target must be an http(s) or file URL or an absolute path'),
});
export const Opened = z.object({ target: z.string() });

export const DesktopBoxParams = z.object({ box_id: idSchema('box', 'box_id') });

/** The live view's WebSocket messages, both ways: binary frames of the RFB (VNC) protocol. */
export const DesktopVncFrame = z.string().describe('A binary WebSocket message: RFB (VNC) protocol bytes, as noVNC sends and reads them.');

/** The browser's DevTools protocol, both ways: one JSON object a message (commands with `id` and `method`; results and events). */
export const DesktopCdpMessage = z
  .looseObject({ id: z.number().int().optional(), method: z.string().optional(), sessionId: z.string().optional() })
  .describe('A Chrome DevTools Protocol message (JSON).');

/**
 * A recording of a desktop box's screen: a frame every `interval_ms` (at `scale`), kept only
 * when the screen changed, so playback shows the session as it went, with its timing.
 */
export const StartRecordingBody = z.strictObject({
  /** Milliseconds between frames (200–10000; default 1000). */
  interval_ms: z.number().int().min(200).max(10_000).optional(),
  /** Scale factor of the frames (0.1–1; default 0.5). */
  scale: z.number().min(0.1).max(1).optional(),
  /** Stops by itself after this many seconds (1–14400; default 3600). */
  max_seconds: z.number().int().min(1).max(14_400).optional(),
});
export type StartRecordingBody = z.infer<typeof StartRecordingBody>;

export const RecordingFrame = z.object({
  /** Milliseconds since the recording started. */
  at_ms: z.number().int(),
  /** Which stored image this frame shows (GET .../frames/{image}). */
  image: z.number().int(),
});

export const DesktopRecording = z.object({
  recording_id: z.string(),
  box_id: z.string(),
  status: z.enum(['recording', 'stopped']),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  interval_ms: z.number().int(),
  scale: z.number(),
  /** The frames in order; consecutive frames of an unchanged screen share one image. */
  frames: z.array(RecordingFrame),
  images: z.number().int(),
  bytes: z.number().int(),
  /** Why it stopped: `stopped` (asked), `max_seconds`, `box_gone`, `error: ...`. */
  stop_reason: z.string().nullable(),
});
export type DesktopRecording = z.infer<typeof DesktopRecording>;

export const RecordingParams = z.object({ box_id: idSchema('box', 'box_id'), recording_id: z.string().regex(/^rec_[0-9a-f]{32}$/, 'not a recording id') });
export const RecordingFrameParams = RecordingParams.extend({
  image: z
    .string()
    .regex(/^\d{1,6}$/, 'image must be a frame image number')
    .transform(Number),
});
