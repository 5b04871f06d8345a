/**
 * The gateway's computer-use loop (issue 37) on a real desktop box (QEMU; TCG here):
 * `box/echo`'s tool mode sends one action per request (the user message), the gateway runs
 * it on the box's screen and answers the screenshot. A page whose button turns green when
 * clicked shows the click landed. Same rule as desktop.vm.test.ts: runs where the desktop
 * image is built (`<BOX_IMAGE_CACHE>/desktop-store`) or with BOX_DESKTOP_VM=1; otherwise its
 * tests count as skipped, by name.
 */
import fs from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, terminateBoxes, type TestService } from '../../test-support/harness.js';
import { desktopImageBuilt, provideDesktopImage } from '../desktop/test-support/desktop-image.js';
import { decodePng, pixel } from '../desktop/test-support/png.js';

const VM_TIMEOUT = 1_800_000;
const RUN = process.env.BOX_DESKTOP_VM === '1' || desktopImageBuilt();
let svc: TestService;
let openai: OpenAI;
let boxId: string;

const PAGE = `<!doctype html><html><head><title>cu</title><style>body{margin:0}
#go{position:fixed;left:0;top:0;width:100vw;height:100vh;background:rgb(220,20,20);border:0} #go.done{background:rgb(20,200,20)}
</style></head><body><button id="go" onclick="this.className='done'">press</button></body></html>`;

/** The page's colour beside the click point, not under it: a screenshot shows the cursor there. */
const beside = (png: ReturnType<typeof decodePng>) => pixel(png, 480, 360);

const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};
const pngOf = (dataUrl: string) => decodePng(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
const COMPUTER = () => ({ type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'linux', container: boxId }) as never;

beforeAll(async () => {
  if (!RUN) return;
  const dataDir = fs.mkdtempSync('/tmp/bxcu-');
  await provideDesktopImage(dataDir);
  svc = await startTestService({ dataDir });
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, timeout: 600_000 });
  const appId = (await post('/v1/apps/find', { name: 'cu', mint_if_missing: true })).id;
  boxId = (await post('/v1/boxes', { app_id: appId, name: 'cu1', image: 'desktop', size: 's' })).box_id;
  await post(`/v1/boxes/${boxId}/exec`, { command: `mkdir -p /tmp/cu && cat > /tmp/cu/p.html <<'EOF'\n${PAGE}\nEOF` }).catch(() => undefined);
  await post(`/v1/boxes/${boxId}/desktop/open`, { target: 'file:///tmp/cu/p.html' });
}, VM_TIMEOUT);
afterAll(async () => {
  if (!svc) return;
  await terminateBoxes(svc);
  await svc.close();
}, VM_TIMEOUT);

describe.skipIf(!RUN)('computer use in the hosted loop, on a desktop box', () => {
  it(
    'Responses: a click the model asks for lands on the screen; the screenshot it gets back shows it',
    async () => {
      // Wait for the page (red) through the loop's own screenshots.
      for (let i = 0; ; i++) {
        const r = await openai.responses.create({ model: 'box/echo', input: 'look', tools: [COMPUTER()] });
        const out = r.output.find((o) => o.type === 'computer_call_output') as any;
        // red, not just bright: the browser's window is white before the page paints
        const [r0, g0, b0] = beside(pngOf(out.output.image_url));
        if (r0 > 180 && g0 < 80 && b0 < 80) break;
        if (i > 60) throw new Error('the page never showed');
        await new Promise((res) => setTimeout(res, 2000));
      }
      const r = await openai.responses.create({ model: 'box/echo', input: '{"type":"click","x":512,"y":384}', tools: [COMPUTER()] });
      expect(r.status).toBe('completed');
      const out = r.output.find((o) => o.type === 'computer_call_output') as any;
      const [red, green] = beside(pngOf(out.output.image_url));
      expect(green).toBeGreaterThan(160);
      expect(red).toBeLessThan(80);
    },
    VM_TIMEOUT,
  );

  it(
    'Messages: the computer tool answers a real screenshot of the configured box',
    async () => {
      const anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url, timeout: 600_000 });
      const m = (await anthropic.messages.create({
        model: 'box/echo',
        max_tokens: 64,
        container: boxId,
        tools: [{ type: 'computer_20250124', name: 'computer', display_width_px: 1024, display_height_px: 768 }],
        messages: [{ role: 'user', content: '{"action":"screenshot"}' }],
      } as never)) as any;
      const result = m.content.find((b: any) => b.type === 'computer_tool_result');
      expect(result.is_error).toBe(false);
      const png = decodePng(Buffer.from(result.content[0].source.data, 'base64'));
      expect(png.width).toBeGreaterThan(0);
    },
    VM_TIMEOUT,
  );
});
