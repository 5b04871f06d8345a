import { deflateSync } from 'node:zlib';
import { AppPage } from './pages/app-page.js';
import { PlaygroundPage } from './pages/playground-page.js';
import { docShots, expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

// Issue 38 item 13 and issue 34's playground: a streamed answer as its events, a chat view
// (engine and model at the top, streaming, tool calls, images, the API request beside it),
// and embeddings. All on the built-in box/echo, no VM.
const svc = serviceForFile({});

/** A real PNG of w×h red pixels (what a user attaches), built here so its size is known. */
function png(w: number, h: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const t = Buffer.concat([Buffer.from(type), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(t));
    return Buffer.concat([len, t, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const rows = Buffer.concat(Array.from({ length: h }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, Buffer.from([255, 0, 0]))])));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

test('playground: a streamed answer shows as its server-sent events, the assembled JSON one click away', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('playground');
  const pg = new PlaygroundPage(page);
  await page.getByTestId('webhook-on').uncheck();
  await page.getByTestId('stream-on').check();
  await pg.send({ style: 'responses', model: 'box/echo', prompt: 'one two three' });
  await expect(pg.outputText()).toHaveText('Echo: one two three');
  const events = page.getByTestId('stream-event');
  await expect(events.first()).toHaveAttribute('data-type', 'response.created');
  await expect(events.last()).toHaveAttribute('data-type', 'response.completed');
  // one delta event per token the echo sent: "Echo", ":", "one", "two", "three"
  await expect(page.locator('[data-testid=stream-event][data-type="response.output_text.delta"]')).toHaveCount(5);
  await expect(page.getByTestId('stream-event-counts')).toContainText('response.output_text.delta ×5');
  // a row opens to its full data
  await page.locator('[data-testid=stream-event][data-type="response.output_text.delta"]').nth(2).getByRole('button').click();
  await expect(page.getByTestId('stream-events')).toContainText('"delta": " one"');
  await expect(pg.rawResponse()).toBeHidden();
  await page.getByTestId('show-json').click();
  await expect(pg.rawResponse()).toContainText('"status": "completed"');

  // chat style: the chunks are events too, ending in [DONE]
  await pg.send({ style: 'chat', model: 'box/echo', prompt: 'hi' });
  await expect(pg.outputText()).toHaveText('Echo: hi');
  await expect(page.getByTestId('stream-event').last()).toHaveAttribute('data-type', '[DONE]');
  await expect(page.locator('[data-testid=stream-event][data-type="chat.completion.chunk"]').first()).toBeVisible();
  await screenshot(page, 'playground-stream-events');
});

test('playground: embeddings of three inputs, their sizes and how alike they are', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('playground');
  const panel = page.getByTestId('embeddings-panel');
  await expect(panel.getByTestId('embed-model')).toHaveValue('box/echo');
  await panel.getByTestId('embed-input').fill('a cat sat\na cat sat\nsomething else');
  await panel.getByTestId('embed-send').click();
  await expect(panel.getByTestId('embed-row')).toHaveCount(3);
  // the vectors the API gives, summarised: the same size, the same text alike
  const api = (await (await svc().api('/v1/embeddings', { method: 'POST', json: { model: 'box/echo', input: 'a cat sat' } })).json()) as {
    data: Array<{ embedding: number[] }>;
  };
  const dims = api.data[0]!.embedding.length;
  expect(dims).toBeGreaterThan(1);
  await expect(panel.getByTestId('embed-dims').first()).toHaveText(String(dims));
  await expect(panel.getByTestId('embed-cos-0-1')).toHaveText('1.000');
  await expect(panel.getByTestId('embed-cos-0-0')).toHaveText('1.000');
  expect(Number(await panel.getByTestId('embed-cos-0-2').innerText())).toBeLessThan(0.999);
  await expect(panel.getByTestId('embed-row').first()).toContainText(
    `[${api.data[0]!.embedding.slice(0, 2)
      .map((x) => x.toFixed(3))
      .join(', ')}`,
  );
});

test('chat: engine and model at the top, a streamed conversation, an image attached, a tool call answered, the API request beside it', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('chat');
  await expect(page.getByTestId('chat-engine')).toHaveValue('box');
  await expect(page.getByTestId('chat-model')).toHaveValue('box/echo');
  // An empty message is not sent.
  await page.getByTestId('chat-send').click();
  await expect(page.getByTestId('chat-note')).toContainText('empty message is not sent');
  await expect(page.getByTestId('chat-turn')).toHaveCount(0);

  const input = page.getByTestId('chat-input');
  await input.fill('hello there');
  await page.getByTestId('chat-view-api').click();
  const api = page.getByTestId('chat-api-request');
  await expect(api).toContainText('POST /v1/responses');
  await expect(api).toContainText('"content": "hello there"');
  await expect(api).toContainText('"stream": true');
  await input.press('Enter');
  const answers = page.getByTestId('chat-answer');
  await expect(answers.nth(0)).toHaveText('Echo: hello there');
  await expect(page.locator('[data-testid=chat-turn][data-role=assistant]').nth(0)).toHaveAttribute('data-status', 'completed');

  // An image attached: the echo says what it received.
  const image = png(3, 2);
  await page.getByTestId('chat-file').setInputFiles({ name: 'red.png', mimeType: 'image/png', buffer: image });
  await expect(page.getByTestId('chat-attachment')).toHaveCount(1);
  await input.fill('what is this?');
  await expect(api).toContainText('"type": "input_image"');
  await expect(api).toContainText('data:image/png;base64,');
  // the whole conversation goes along: the first turn and its answer
  await expect(api).toContainText('"content": "Echo: hello there"');
  await page.getByTestId('chat-send').click();
  await expect(answers.nth(1)).toHaveText(`Echo: what is this? [image: image/png, ${image.length} bytes, 3x2]`);
  await expect(page.getByTestId('chat-sent-image')).toHaveCount(1);
  await expect(page.getByTestId('chat-attachment')).toHaveCount(0);

  // A function tool: the call shows with its arguments; the result goes back; the model answers with it.
  await page.getByTestId('chat-function-tool').check();
  await input.fill('Paris');
  await input.press('Enter');
  await expect(page.getByTestId('chat-function-name')).toHaveText('get_weather');
  await expect(page.getByTestId('chat-function-args')).toHaveText('{"city":"Paris"}');
  await page.getByTestId('chat-function-result').fill('sunny, 21 C');
  await page.getByTestId('chat-function-send').click();
  await expect(answers.nth(2)).toHaveText('sunny, 21 C');
  await expect(page.getByTestId('chat-function-result')).toHaveCount(0);
  await screenshot(page, 'chat');
  // for the docs: the conversation under its engine and model (the API request folded away)
  await page.getByTestId('chat-view-api').click();
  await expect(api).toBeHidden();
  await docShots(page, 'chat-conversation', () => page.getByTestId('chat-engine').scrollIntoViewIfNeeded());
});
