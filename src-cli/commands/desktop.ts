import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dispatch, parse, type Command, type Ctx, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { json, table } from '../output.js';
import { resolveBoxId } from '../resolve.js';
import type { DesktopAction } from '@box/contract/desktop';
import { buildBoxfile } from './image-user.js';

/**
 * `box desktop ...`: computer use on a desktop box (issue 37), one API call each:
 * screenshot, info, windows, click/move/drag/scroll, type, key, launch, open; and
 * `box desktop image`, which builds the `desktop` image from the recipe shipped with Box.
 */
const RECIPE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../resources/images/desktop');

const int = (s: string | undefined, what: string) => {
  if (s === undefined || !/^\d+$/.test(s)) throw new CliError(`${what}: expected a whole number of pixels, got ${s ?? 'nothing'}`, 2);
  return Number(s);
};

async function act(ctx: Ctx, ref: string, action: DesktopAction) {
  const box_id = await resolveBoxId(ctx.client, ref);
  const r = await ctx.client.call('POST /v1/boxes/:box_id/desktop/actions', { params: { box_id }, body: action });
  if (ctx.json) json(r);
  else process.stdout.write(`${r.type}: cursor at ${r.cursor.x},${r.cursor.y}\n`);
}

const screenshot: Command = {
  usage: 'box desktop screenshot <box> [-o FILE.png] [--scale 0.1..1]',
  summary: "Save a PNG of the box's screen (default: screenshot-<box>.png)",
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { output: { type: 'string', short: 'o' }, scale: { type: 'string' } }, [1, 1]);
    const box_id = await resolveBoxId(ctx.client, positionals[0]!);
    const q = values.scale ? `?scale=${encodeURIComponent(values.scale)}` : '';
    const res = await ctx.client.raw('GET', `/v1/boxes/${encodeURIComponent(box_id)}/desktop/screenshot${q}`);
    const png = Buffer.from(await res.arrayBuffer());
    const out = values.output ?? `screenshot-${positionals[0]}.png`;
    if (out === '-') process.stdout.write(png);
    else {
      fs.writeFileSync(out, png);
      process.stderr.write(`${out}: ${png.length} bytes, ${png.readUInt32BE(16)}x${png.readUInt32BE(20)}\n`);
    }
  },
};

const info: Command = {
  usage: 'box desktop info <box>',
  summary: 'Screen size, cursor position and the focused window',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [1, 1]);
    const box_id = await resolveBoxId(ctx.client, positionals[0]!);
    const d = await ctx.client.call('GET /v1/boxes/:box_id/desktop', { params: { box_id } });
    if (ctx.json) return json(d);
    process.stdout.write(`screen ${d.width}x${d.height} on ${d.display}, cursor at ${d.cursor.x},${d.cursor.y}\n`);
    process.stdout.write(`focused: ${d.focused_window ? `${d.focused_window.title} (${d.focused_window.id})` : '(none)'}\n`);
  },
};

const windows: Command = {
  usage: 'box desktop windows <box>',
  summary: "The screen's windows",
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [1, 1]);
    const box_id = await resolveBoxId(ctx.client, positionals[0]!);
    const { data } = await ctx.client.call('GET /v1/boxes/:box_id/desktop/windows', { params: { box_id } });
    if (ctx.json) return json(data);
    table(
      ['ID', 'PID', 'FOCUSED', 'TITLE'],
      data.map((w) => [w.id, String(w.pid ?? ''), w.focused ? '*' : '', w.title]),
    );
  },
};

const click: Command = {
  usage: 'box desktop click <box> X Y [--button left|right|middle] [--double]',
  summary: 'Click at X,Y',
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { button: { type: 'string' }, double: { type: 'boolean' } }, [3, 3]);
    const button = values.button as 'left' | 'right' | 'middle' | undefined;
    if (button && !['left', 'right', 'middle'].includes(button)) throw new CliError(`--button ${button}: expected left, right or middle`, 2);
    await act(ctx, positionals[0]!, { type: 'click', x: int(positionals[1], 'X'), y: int(positionals[2], 'Y'), button, double: values.double });
  },
};

const move: Command = {
  usage: 'box desktop move <box> X Y',
  summary: 'Move the mouse to X,Y',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [3, 3]);
    await act(ctx, positionals[0]!, { type: 'move', x: int(positionals[1], 'X'), y: int(positionals[2], 'Y') });
  },
};

const drag: Command = {
  usage: 'box desktop drag <box> X1 Y1 X2 Y2',
  summary: 'Drag with the left button from X1,Y1 to X2,Y2',
  async run(ctx, argv) {
    const { positionals: p } = parse(argv, this.usage, {}, [5, 5]);
    await act(ctx, p[0]!, { type: 'drag', from: { x: int(p[1], 'X1'), y: int(p[2], 'Y1') }, to: { x: int(p[3], 'X2'), y: int(p[4], 'Y2') } });
  },
};

const scroll: Command = {
  usage: 'box desktop scroll <box> [up|down|left|right] [--amount N] [--at X,Y]',
  summary: 'Scroll the mouse wheel (default: down 3)',
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { amount: { type: 'string' }, at: { type: 'string' } }, [1, 2]);
    const direction = (positionals[1] ?? 'down') as 'down';
    if (!['up', 'down', 'left', 'right'].includes(direction)) throw new CliError(`${direction}: expected up, down, left or right`, 2);
    const at = values.at?.split(',');
    await act(ctx, positionals[0]!, {
      type: 'scroll',
      direction,
      amount: values.amount === undefined ? undefined : int(values.amount, '--amount'),
      ...(at ? { x: int(at[0], '--at X'), y: int(at[1], '--at Y') } : {}),
    });
  },
};

const type: Command = {
  usage: 'box desktop type <box> TEXT',
  summary: 'Type TEXT into the focused window',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [2, 2]);
    await act(ctx, positionals[0]!, { type: 'type', text: positionals[1]! });
  },
};

const key: Command = {
  usage: 'box desktop key <box> COMBO...   (e.g. ctrl+l, Return, alt+F4)',
  summary: 'Press keys or key combinations',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [2, 20]);
    await act(ctx, positionals[0]!, { type: 'key', keys: positionals.slice(1).join(' ') });
  },
};

const launch: Command = {
  usage: 'box desktop launch <box> APP [ARGS...]   (e.g. box-browser https://example.com, xterm)',
  summary: 'Start an application on the screen',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [2, 66]);
    const box_id = await resolveBoxId(ctx.client, positionals[0]!);
    const r = await ctx.client.call('POST /v1/boxes/:box_id/desktop/launch', {
      params: { box_id },
      body: { app: positionals[1]!, args: positionals.slice(2) },
    });
    if (ctx.json) json(r);
    else process.stdout.write(`started ${r.app}${r.pid ? ` (pid ${r.pid})` : ''}\n`);
  },
};

const open: Command = {
  usage: 'box desktop open <box> URL|PATH',
  summary: 'Open a URL or a file with the default application',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [2, 2]);
    const box_id = await resolveBoxId(ctx.client, positionals[0]!);
    const r = await ctx.client.call('POST /v1/boxes/:box_id/desktop/open', { params: { box_id }, body: { target: positionals[1]! } });
    if (ctx.json) json(r);
    else process.stdout.write(`opened ${r.target}\n`);
  },
};

const image: Command = {
  usage: 'box desktop image [--data-dir dir]',
  summary: 'Build the "desktop" image from the recipe shipped with Box (its packages on the host, as root: minutes the first time)',
  async run(ctx, argv) {
    const { values } = parse(argv, this.usage, { 'data-dir': { type: 'string' } }, [0, 0]);
    if (!fs.existsSync(path.join(RECIPE, 'Boxfile'))) throw new CliError(`the desktop recipe is missing (${RECIPE})`, 1);
    await buildBoxfile(ctx, { tag: 'desktop', file: path.join(RECIPE, 'Boxfile'), 'data-dir': values['data-dir'] }, RECIPE);
  },
};

const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));

const record: Command = {
  usage: 'box desktop record <box> [--interval MS] [--scale 0.1..1] [--max-seconds N] | record <box> --stop ID | record <box> --list',
  summary: "Record the box's screen (a frame every interval, kept when it changed); play it back in the app's Screen tab",
  async run(ctx, argv) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      { interval: { type: 'string' }, scale: { type: 'string' }, 'max-seconds': { type: 'string' }, stop: { type: 'string' }, list: { type: 'boolean' } },
      [1, 1],
    );
    const box_id = await resolveBoxId(ctx.client, positionals[0]!);
    if (values.list) {
      const { data } = await ctx.client.call('GET /v1/boxes/:box_id/desktop/recordings', { params: { box_id } });
      if (ctx.json) return json(data);
      return table(
        ['ID', 'STATUS', 'STARTED', 'SECONDS', 'FRAMES', 'IMAGES'],
        data.map((r) => [r.recording_id, r.status, r.started_at, ((r.frames.at(-1)?.at_ms ?? 0) / 1000).toFixed(1), String(r.frames.length), String(r.images)]),
      );
    }
    const r = values.stop
      ? await ctx.client.call('POST /v1/boxes/:box_id/desktop/recordings/:recording_id/stop', { params: { box_id, recording_id: values.stop } })
      : await ctx.client.call('POST /v1/boxes/:box_id/desktop/recordings', {
          params: { box_id },
          body: { interval_ms: num(values.interval), scale: num(values.scale), max_seconds: num(values['max-seconds']) },
        });
    if (ctx.json) return json(r);
    process.stdout.write(
      r.status === 'recording'
        ? `recording ${r.recording_id} (stop: box desktop record ${positionals[0]} --stop ${r.recording_id})\n`
        : `stopped ${r.recording_id}: ${r.frames.length} frames, ${r.images} images, ${((r.frames.at(-1)?.at_ms ?? 0) / 1000).toFixed(1)} s\n`,
    );
  },
};

const group: Group = { screenshot, info, windows, click, move, drag, scroll, type, key, launch, open, record, image };
export const desktop: Command = {
  usage: 'box desktop screenshot|info|windows|click|move|drag|scroll|type|key|launch|open|record|image',
  summary: 'Computer use on a desktop box (created with --image desktop): screen, mouse, keyboard, apps',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box desktop', argv),
};
