import { startFakeUpstream, type FakeUpstream } from '../src-server/areas/inference/test-support/fake-upstreams.js';
import { AppPage } from './pages/app-page.js';
import { PlaygroundPage } from './pages/playground-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

// Short webhook rounds so retries happen within the test.
const svc = serviceForFile({ webhookSchedule: { roundDelaysMs: [400], attemptsPerRound: 2, maxRounds: 2, attemptTimeoutMs: 3000, roundBudgetMs: 5000 } });
let upstream: FakeUpstream;

test.beforeAll(async () => {
  upstream = await startFakeUpstream('openai');
  const res = await svc().api('/v1/engines', { method: 'POST', json: { name: 'fake', kind: 'openai', base_url: upstream.url, api_key: 'sk-fake' } });
  expect(res.status).toBe(200);
});
test.afterAll(async () => upstream?.close());

test('playground: a Responses request to a loopback upstream; failed webhook attempts, then redelivered into the inbox', async ({ page }) => {
  test.skip(!(await svc().has('post', '/v1/responses')), 'the inference area is not installed');
  await login(page, svc());
  await new AppPage(page).open('playground');
  const pg = new PlaygroundPage(page);

  await pg.setInboxStatus(503);
  await pg.send({ style: 'responses', model: 'fake/fake-gpt', prompt: 'ping from the playground' });
  await expect(pg.outputText()).toHaveText('echo: ping from the playground');
  await expect(pg.rawRequest()).toContainText('"completion_webhook": "http://127.0.0.1:');
  await expect(pg.rawResponse()).toContainText('"id": "resp_');
  const responseId = JSON.parse(await pg.rawResponse().innerText()).id as string;
  expect(responseId).toMatch(/^resp_/);
  expect(upstream.requests.at(-1)?.body.messages.at(-1).content).toBe('ping from the playground');

  // The service retries: 2 rounds x 2 attempts, each answered 503 by the inbox.
  await expect(pg.attempts()).toHaveCount(4, { timeout: 20_000 });
  await expect(page.locator('[data-testid="attempt"][data-status="503"]')).toHaveCount(4);
  await expect(pg.deliveryState()).toContainText('failed');
  await expect(pg.inboxDeliveries()).toHaveCount(4);

  // Make the inbox accept, redeliver: one more attempt, answered 200, with the response id and signature.
  await pg.setInboxStatus(200);
  await page.getByTestId('redeliver').click();
  await expect(page.locator('[data-testid="attempt"][data-status="200"]')).toHaveCount(1);
  await expect(pg.deliveryState()).toContainText('succeeded');
  const accepted = pg.inboxDeliveries().filter({ hasText: '200' }).first();
  await expect(accepted.getByTestId('inbox-delivery-id')).toContainText(`${responseId} completed`);
  await accepted.getByRole('button').first().click();
  await expect(accepted).toContainText('webhook-signature');
  await screenshot(page, 'playground');
  await page.getByTestId('attempts').scrollIntoViewIfNeeded();
  await screenshot(page, 'playground-webhooks');
});

test('playground: a Chat request with a JSON schema shows the API error or the structured answer', async ({ page }) => {
  test.skip(!(await svc().has('post', '/v1/chat/completions')), 'the inference area is not installed');
  await login(page, svc());
  await new AppPage(page).open('playground');
  const pg = new PlaygroundPage(page);
  upstream.jsonReplies.push('{"greeting":"hi there"}');
  await page.getByTestId('webhook-on').uncheck();
  await page.getByTestId('schema-on').check();
  await pg.send({ style: 'chat', model: 'fake/fake-gpt', prompt: 'greet' });
  await expect(pg.outputText()).toHaveText('{"greeting":"hi there"}');
  await expect(pg.rawRequest()).toContainText('"response_format"');
  expect(upstream.requests.at(-1)?.body.response_format.json_schema.schema.required).toEqual(['greeting']);

  // An unknown model: the API's own message is shown.
  await page.getByTestId('schema-on').uncheck();
  await page.getByTestId('model-select').selectOption('fake/fake-gpt');
  await page.evaluate(() => {
    const sel = document.querySelector('[data-testid="model-select"]') as HTMLSelectElement;
    sel.add(new Option('nope/missing', 'nope/missing'));
  });
  await page.getByTestId('model-select').selectOption('nope/missing');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('error')).toContainText('does not exist');
});
