import type { DesktopAction } from '@box/contract/desktop';
import type { HostedCall, NativeTool } from '../native.js';

/**
 * Computer use in the hosted-tool loop (issue 37): OpenAI's `computer_use_preview` tool
 * (Responses) and Anthropic's `computer_20250124` tool (Messages), run by the gateway on a
 * desktop box (desktop/). Pure: the function the engine sees, the model's action in either
 * style → one canonical action (OpenAI's `computer_call.action` shape) → the desktop's
 * actions, and the wire items and blocks of a call.
 */
type Rec = Record<string, unknown>;

/** The canonical action: OpenAI's computer_call action (click, double_click, drag, keypress, move, screenshot, scroll, type, wait). */
type ComputerAction = Rec & { type: string };

const ACTIONS = ['click', 'double_click', 'drag', 'keypress', 'move', 'screenshot', 'scroll', 'type', 'wait'] as const;

/** The function the engine sees for the computer tool. */
export function computerFunction(name: string, width: number, height: number): NativeTool {
  return {
    name,
    description:
      `Operates the screen of a Linux desktop (${width}x${height} pixels) in a sandbox: one mouse or keyboard action, ` +
      'then answers a screenshot of the screen. Coordinates are pixels from the top left.',
    parameters: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: [...ACTIONS], description: 'The action.' },
        x: { type: 'integer' },
        y: { type: 'integer' },
        button: { type: 'string', enum: ['left', 'right', 'middle'] },
        text: { type: 'string', description: 'type: the text to type.' },
        keys: { type: 'array', items: { type: 'string' }, description: 'keypress: the keys pressed together, e.g. ["CTRL", "L"].' },
        scroll_x: { type: 'integer' },
        scroll_y: { type: 'integer', description: 'scroll: pixels down (negative: up).' },
        path: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' } } } },
      },
      required: ['type'],
    },
  };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.round(v)) : undefined);
const pair = (v: unknown): [number, number] | null =>
  Array.isArray(v) && v.length === 2 && num(v[0]) !== undefined && num(v[1]) !== undefined ? [num(v[0])!, num(v[1])!] : null;

/**
 * The model's arguments as the canonical action: OpenAI's shape as it is; Anthropic's
 * (`action: "left_click"`, `coordinate: [x, y]`, `text`, `scroll_direction`, ...) translated.
 * An unknown action is kept (running it fails with a message the model reads).
 */
export function canonicalAction(args: Rec): ComputerAction {
  if (typeof args.type === 'string') return args as ComputerAction;
  const a = typeof args.action === 'string' ? args.action : 'screenshot';
  const at = pair(args.coordinate);
  const xy = at ? { x: at[0], y: at[1] } : {};
  switch (a) {
    case 'left_click':
    case 'right_click':
    case 'middle_click':
      return { type: 'click', button: a.split('_')[0]!, ...xy };
    case 'double_click':
      return { type: 'double_click', ...xy };
    case 'mouse_move':
      return { type: 'move', ...xy };
    case 'left_click_drag': {
      const from = pair(args.start_coordinate);
      return { type: 'drag', path: [from ? { x: from[0], y: from[1] } : null, at ? xy : null].filter(Boolean) };
    }
    case 'type':
      return { type: 'type', text: String(args.text ?? '') };
    case 'key':
      return { type: 'keypress', keys: String(args.text ?? '').split('+') };
    case 'scroll': {
      const n = (num(args.scroll_amount) ?? 3) * 100;
      const d = String(args.scroll_direction ?? 'down');
      return { type: 'scroll', ...xy, scroll_x: d === 'left' ? -n : d === 'right' ? n : 0, scroll_y: d === 'up' ? -n : d === 'down' ? n : 0 };
    }
    case 'wait':
      return { type: 'wait' };
    case 'screenshot':
      return { type: 'screenshot' };
    default:
      return { type: a };
  }
}

/** xdotool's name of a key as OpenAI's and Anthropic's models write it ("CTRL", "Enter", "ArrowLeft", "cmd"). */
function xdoKey(k: string): string {
  const low = k.toLowerCase();
  const map: Record<string, string> = {
    ctrl: 'ctrl',
    control: 'ctrl',
    alt: 'alt',
    shift: 'shift',
    cmd: 'super',
    meta: 'super',
    super: 'super',
    win: 'super',
    enter: 'Return',
    return: 'Return',
    esc: 'Escape',
    escape: 'Escape',
    tab: 'Tab',
    space: 'space',
    backspace: 'BackSpace',
    delete: 'Delete',
    del: 'Delete',
    arrowleft: 'Left',
    arrowright: 'Right',
    arrowup: 'Up',
    arrowdown: 'Down',
    left: 'Left',
    right: 'Right',
    up: 'Up',
    down: 'Down',
    home: 'Home',
    end: 'End',
    pageup: 'Prior',
    pagedown: 'Next',
  };
  return map[low] ?? (k.length === 1 ? low : k);
}

const point = (v: unknown) => {
  const r = (v ?? {}) as Rec;
  const x = num(r.x);
  const y = num(r.y);
  return x === undefined || y === undefined ? null : { x, y };
};

/**
 * The desktop actions of a canonical action (none for screenshot and wait). Throws an Error
 * whose message the model reads when the action cannot be done.
 */
export function desktopActions(a: ComputerAction): DesktopAction[] {
  const at = point(a);
  const xy = at ?? {};
  switch (a.type) {
    case 'screenshot':
    case 'wait':
      return [];
    case 'click': {
      const b = a.button === 'right' || a.button === 'middle' ? a.button : 'left';
      return [{ type: 'click', ...xy, button: b }];
    }
    case 'double_click':
      return [{ type: 'click', ...xy, double: true }];
    case 'move':
      if (!at) throw new Error('move needs x and y.');
      return [{ type: 'move', ...at }];
    case 'drag': {
      const path = Array.isArray(a.path) ? a.path.map(point).filter((p) => p !== null) : [];
      if (path.length < 2) throw new Error('drag needs a path of at least two points.');
      return [{ type: 'drag', from: path[0]!, to: path[path.length - 1]! }];
    }
    case 'type':
      if (typeof a.text !== 'string' || !a.text) throw new Error('type needs text.');
      return [{ type: 'type', text: a.text }];
    case 'keypress': {
      const keys = Array.isArray(a.keys) ? a.keys.map(String).filter(Boolean) : [];
      if (!keys.length) throw new Error('keypress needs keys.');
      return [{ type: 'key', keys: keys.map(xdoKey).join('+') }];
    }
    case 'scroll': {
      const sx = Number(a.scroll_x ?? 0) || 0;
      const sy = Number(a.scroll_y ?? 0) || 0;
      const vertical = Math.abs(sy) >= Math.abs(sx);
      const amount = Math.min(100, Math.max(1, Math.round(Math.abs(vertical ? sy : sx) / 100)));
      const direction = vertical ? (sy < 0 ? 'up' : 'down') : sx < 0 ? 'left' : 'right';
      return [{ type: 'scroll', ...xy, direction, amount }];
    }
    default:
      throw new Error(`Unknown computer action "${a.type}": use one of ${ACTIONS.join(', ')}.`);
  }
}

/** The canonical action in Anthropic's shape (a Messages `server_tool_use` block's input). */
export function anthropicInput(a: ComputerAction): Rec {
  const at = point(a);
  const coordinate = at ? { coordinate: [at.x, at.y] } : {};
  switch (a.type) {
    case 'click':
      return { action: `${a.button === 'right' || a.button === 'middle' ? a.button : 'left'}_click`, ...coordinate };
    case 'double_click':
      return { action: 'double_click', ...coordinate };
    case 'move':
      return { action: 'mouse_move', ...coordinate };
    case 'drag': {
      const path = Array.isArray(a.path) ? a.path.map(point).filter((p) => p !== null) : [];
      return {
        action: 'left_click_drag',
        start_coordinate: path[0] ? [path[0].x, path[0].y] : null,
        coordinate: path.at(-1) ? [path.at(-1)!.x, path.at(-1)!.y] : null,
      };
    }
    case 'type':
      return { action: 'type', text: a.text };
    case 'keypress':
      return { action: 'key', text: Array.isArray(a.keys) ? a.keys.join('+') : '' };
    case 'scroll': {
      const sy = Number(a.scroll_y ?? 0) || 0;
      const sx = Number(a.scroll_x ?? 0) || 0;
      const vertical = Math.abs(sy) >= Math.abs(sx);
      return {
        action: 'scroll',
        ...coordinate,
        scroll_direction: vertical ? (sy < 0 ? 'up' : 'down') : sx < 0 ? 'left' : 'right',
        scroll_amount: Math.max(1, Math.round(Math.abs(vertical ? sy : sx) / 100)),
      };
    }
    default:
      return { action: a.type };
  }
}

/** A screenshot data URL's base64 payload and media type. */
export function screenshotParts(dataUrl: string): { mediaType: string; data: string } | null {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl);
  return m ? { mediaType: m[1]!, data: m[2]! } : null;
}

/** Responses: the `computer_call` item of a hosted call. */
export function computerCallItem(id: string, c: HostedCall, status?: 'in_progress') {
  return {
    type: 'computer_call' as const,
    id,
    call_id: c.id,
    action: c.action ?? { type: 'screenshot' },
    pending_safety_checks: [],
    status: status ?? (c.status === 'completed' ? 'completed' : 'incomplete'),
    container_id: c.containerId,
  };
}

/** Responses: its `computer_call_output` item (the screenshot after the action; empty when it failed). */
export function computerOutputItem(id: string, c: HostedCall) {
  return {
    type: 'computer_call_output' as const,
    id,
    call_id: c.id,
    output: { type: 'computer_screenshot' as const, image_url: c.screenshot ?? '' },
    acknowledged_safety_checks: [],
    status: c.status === 'completed' ? ('completed' as const) : ('incomplete' as const),
    ...(c.status === 'completed' ? {} : { error: c.result }),
  };
}

/** Messages: its result block (Box's, beside the code execution tool's): the screenshot, or the error text. */
export function computerResultBlock(c: HostedCall) {
  const shot = c.screenshot ? screenshotParts(c.screenshot) : null;
  return {
    type: 'computer_tool_result' as const,
    tool_use_id: c.id,
    is_error: !shot,
    content: shot
      ? [{ type: 'image' as const, source: { type: 'base64' as const, media_type: shot.mediaType, data: shot.data } }]
      : [{ type: 'text' as const, text: c.result }],
  };
}
