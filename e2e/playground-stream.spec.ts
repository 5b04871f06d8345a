import { startFakeUpstream, type FakeUpstream } from '../src-server/areas/inference/test-support/fake-upstreams.js';
import { AppPage } from './pages/app-page.js';
import { PlaygroundPage } from './pages/playground-page.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';

// Issue 24: the playground shows a stream as it arrives, in all three styles, and a tool-call
// turn (the call, a field to answer it, the follow-up).
const svc = serviceForFile({});
let upstream: FakeUpstream;
test.beforeAll(async () => {
  upstream = await startFakeUpstream('openai');
  upstream.chunkDelayMs = 150; // slow enough to watch the text grow
  const res = await svc().api('/v1/engines', { method: 'POST', json: { name: 'fake', kind: 'openai', base_url: upstream.url } });
  expect(res.status).toBe(200);
});
test.afterAll(async () => upstream?.close());

test('playground: streamed answers in all three styles, then a tool-call turn answered by hand', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('playground');
  const pg = new PlaygroundPage(page);
  await page.getByTestId('webhook-on').uncheck();
  await page.getByTestId('stream-on').check();
  for (const style of ['responses', 'chat', 'messages'] as const) {
    await pg.send({ style, model: 'fake/fake-gpt', prompt: `one two three four five ${style}` });
    // Part of the answer is on screen while the stream is still running...
    await expect(pg.outputText()).toHaveAttribute('data-streaming', 'true');
    await expect(pg.outputText()).toContainText('echo: one');
    // ...and all of it once it ended.
    await expect(pg.outputText()).toHaveText(`echo: one two three four five ${style}`, { timeout: 10_000 });
    await expect(pg.outputText()).toHaveAttribute('data-streaming', 'false');
    expect(upstream.requests.at(-1)?.body.stream).toBe(true);
  }

  // A tool turn with the built-in echo model: it calls the offered tool; the answer goes back; it replies with it.
  await page.getByTestId('tools-on').check();
  for (const style of ['responses', 'chat', 'messages'] as const) {
    await pg.send({ style, model: 'box/echo', prompt: 'Paris' });
    await expect(page.getByTestId('tool-call-name')).toHaveText('get_weather');
    await expect(page.getByTestId('tool-call-args')).toHaveText('{"city":"Paris"}');
    await page.getByTestId('tool-result').fill(`sunny (${style})`);
    await page.getByTestId('send-tool-results').click();
    await expect(pg.outputText()).toHaveText(`sunny (${style})`);
    await expect(page.getByTestId('tool-turn')).toHaveCount(0);
    await expect(pg.rawRequest()).toContainText('tool results follow-up');
  }
});
