/**
 * The gateway's computer-use loop (issue 37) with the desktop faked: OpenAI's
 * `computer_use_preview` (Responses) and Anthropic's `computer_20250124` (Messages) tools,
 * driven by `box/echo`'s tool mode (the user message is the action) and by a scripted
 * upstream, through the official clients. The desktop service's `act` and `screenshot` are
 * replaced on the running service: they record the actions and answer a fixed PNG. (The
 * real screen: hosted-computer.vm.test.ts.)
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesktopAction } from '@box/contract/desktop';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { anthropicInput, canonicalAction, desktopActions } from './hosted/hosted-computer.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';

let svc: TestService;
let openai: OpenAI;
let anthropic: Anthropic;
let up: FakeUpstream;
let boxId: string;
const acted: { box: string; action: DesktopAction }[] = [];
/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const PNG_URL = `data:image/png;base64,${PNG.toString('base64')}`;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  const desktop = svc.ctx.services.desktop;
  desktop.act = async (box, action) => {
    acted.push({ box: box.box_id, action });
    return { type: action.type, cursor: { x: 0, y: 0 } };
  };
  desktop.screenshot = async () => PNG;
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url });
  const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'cu', mint_if_missing: true } })).json()).id;
  boxId = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'screen' } })).json()).box_id;
  up = await startFakeUpstream('openai', { record: true });
  expect((await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: up.url } })).status).toBe(200);
});
afterAll(async () => {
  await svc?.close();
  await up?.close();
});

const COMPUTER = () => ({ type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'linux', container: boxId }) as const;

describe('actions: OpenAI and Anthropic shapes → the desktop', () => {
  it('translates both styles and refuses what cannot be done with a message for the model', () => {
    expect(canonicalAction({ action: 'left_click', coordinate: [10, 20] })).toEqual({ type: 'click', button: 'left', x: 10, y: 20 });
    expect(canonicalAction({ action: 'scroll', coordinate: [5, 5], scroll_direction: 'up', scroll_amount: 2 })).toMatchObject({
      type: 'scroll',
      scroll_y: -200,
    });
    expect(desktopActions({ type: 'keypress', keys: ['CTRL', 'L'] })).toEqual([{ type: 'key', keys: 'ctrl+l' }]);
    expect(desktopActions({ type: 'keypress', keys: ['Enter'] })).toEqual([{ type: 'key', keys: 'Return' }]);
    expect(desktopActions({ type: 'scroll', x: 1, y: 2, scroll_x: 0, scroll_y: 300 })).toEqual([{ type: 'scroll', x: 1, y: 2, direction: 'down', amount: 3 }]);
    expect(
      desktopActions({
        type: 'drag',
        path: [
          { x: 1, y: 1 },
          { x: 9, y: 9 },
        ],
      }),
    ).toEqual([{ type: 'drag', from: { x: 1, y: 1 }, to: { x: 9, y: 9 } }]);
    expect(desktopActions({ type: 'screenshot' })).toEqual([]);
    expect(() => desktopActions({ type: 'teleport' })).toThrow(/Unknown computer action "teleport"/);
    expect(() => desktopActions({ type: 'move' })).toThrow(/move needs x and y/);
    expect(anthropicInput({ type: 'click', button: 'right', x: 3, y: 4 })).toEqual({ action: 'right_click', coordinate: [3, 4] });
  });
});

describe('Responses: computer_use_preview run by the gateway', () => {
  it('runs the action on the box, answers computer_call and computer_call_output with the screenshot; GET shows the same', async () => {
    acted.length = 0;
    const r = await openai.responses.create({ model: 'box/echo', input: '{"type":"click","x":10,"y":20}', tools: [COMPUTER() as never] });
    expect(r.status).toBe('completed');
    expect(r.output.map((o) => o.type)).toEqual(['computer_call', 'computer_call_output', 'message']);
    const [call, out] = r.output as any[];
    expect(call).toMatchObject({ action: { type: 'click', x: 10, y: 20 }, status: 'completed', pending_safety_checks: [], container_id: boxId });
    expect(out).toMatchObject({ call_id: call.call_id, output: { type: 'computer_screenshot', image_url: PNG_URL } });
    expect(acted).toEqual([{ box: boxId, action: { type: 'click', x: 10, y: 20, button: 'left' } }]);
    expect(r.output_text).toContain('Done: click');
    expect(r.tools).toEqual([{ type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'linux', container: boxId }]);
    const again = (await (await svc.api(`/v1/responses/${r.id}`)).json()) as { output: unknown[] };
    expect(again.output).toEqual(JSON.parse(JSON.stringify(r.output)));
    // The output goes back as input (a client replaying the conversation): accepted.
    const next = await openai.responses.create({ model: 'box/echo', input: [...(r.output as never[]), { role: 'user', content: 'thanks' }] });
    expect(next.status).toBe('completed');
  });

  it('streams the call and its output as the openai client reads them', async () => {
    acted.length = 0;
    const stream = await openai.responses.create({
      model: 'box/echo',
      input: '{"type":"keypress","keys":["CTRL","S"]}',
      tools: [COMPUTER() as never],
      stream: true,
    });
    const types: string[] = [];
    let done: any;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'response.output_item.done' && e.item.type === 'computer_call_output') done = e.item;
    }
    expect(types.filter((t) => t.startsWith('response.output_item'))).toEqual([
      'response.output_item.added',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
    ]);
    expect(done).toMatchObject({ output: { image_url: PNG_URL } });
    expect(types.at(-1)).toBe('response.completed');
    expect(acted.map((a) => a.action)).toEqual([{ type: 'key', keys: 'ctrl+s' }]);
  });

  it('a scripted upstream sees the screenshot as an image right after the tool result', async () => {
    acted.length = 0;
    up.requests.length = 0;
    // The scripted upstream calls its first tool again unless the conversation ends in a tool
    // result; here it ends in the screenshot, so it acts until the loop's bound of calls.
    const r = await openai.responses.create({ model: 'oa/m', input: 'look', tools: [COMPUTER() as never] });
    expect(r.status).toBe('incomplete');
    expect(r.output.slice(0, 2).map((o) => o.type)).toEqual(['computer_call', 'computer_call_output']);
    expect(acted.length).toBeGreaterThan(1);
    const second = up.requests.filter((q) => q.path.endsWith('/chat/completions'))[1]!.body as { messages: any[] };
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(second.messages[1].tool_calls[0].function.name).toBe('computer');
    expect(JSON.stringify(second.messages[3])).toContain(PNG_URL);
  });

  it('refuses a bad screen size naming the field, and a box the caller may not use', async () => {
    const bad = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 'x', tools: [{ ...COMPUTER(), display_width: -3 }] } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.param).toBe('tools[0].display_width');
    const missing = await svc.api('/v1/responses', {
      method: 'POST',
      json: { model: 'box/echo', input: 'x', tools: [{ ...COMPUTER(), container: 'box_00000000-0000-4000-8000-000000000000' }] },
    });
    expect(missing.status).toBe(404);
  });
});

describe('Messages: the computer tool run by the gateway', () => {
  it('answers server_tool_use (Anthropic action shape) and a computer_tool_result image; the answer replays', async () => {
    acted.length = 0;
    const tools = [{ type: 'computer_20250124', name: 'computer', display_width_px: 1024, display_height_px: 768 }];
    const m = (await anthropic.messages.create({
      model: 'box/echo',
      max_tokens: 256,
      container: boxId,
      tools: tools as never,
      messages: [{ role: 'user', content: '{"action":"left_click","coordinate":[7,8]}' }],
    } as never)) as any;
    const types = m.content.map((b: any) => b.type);
    expect(types).toEqual(['server_tool_use', 'computer_tool_result', 'text']);
    expect(m.content[0]).toMatchObject({ name: 'computer', input: { action: 'left_click', coordinate: [7, 8] } });
    expect(m.content[1]).toMatchObject({
      tool_use_id: m.content[0].id,
      is_error: false,
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }],
    });
    expect(acted).toEqual([{ box: boxId, action: { type: 'click', x: 7, y: 8, button: 'left' } }]);
    const next = await anthropic.messages.create({
      model: 'box/echo',
      max_tokens: 256,
      container: boxId,
      tools: tools as never,
      messages: [
        { role: 'user', content: '{"action":"left_click","coordinate":[7,8]}' },
        { role: 'assistant', content: m.content },
        { role: 'user', content: 'thanks' },
      ],
    } as never);
    expect((next as any).type).toBe('message');
  });
});
