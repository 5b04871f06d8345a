import { AppPage } from './pages/app-page.js';
import { PlaygroundPage } from './pages/playground-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

// Issue 10 in the UI: a fresh install answers in the playground (built-in box/echo test
// model, preselected) and the guide leads to the three ways of getting a real model.
// No real loopback probes: another session's server on this shared machine must not change the model list.
const svc = serviceForFile({ engineDiscovery: { probes: [] } });

test('fresh install: the playground answers with the test model and guides to a real one', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('playground');
  const pg = new PlaygroundPage(page);
  await expect(page.getByTestId('model-select')).toHaveValue('box/echo');
  await expect(page.getByTestId('model-guide')).toContainText('not a language model');
  await page.getByTestId('webhook-on').uncheck();
  await page.getByTestId('prompt').fill('hello from a fresh install');
  await page.getByTestId('send').click();
  await expect(pg.outputText()).toHaveText('Echo: hello from a fresh install');
  await screenshot(page, 'playground-fresh');

  await page.getByTestId('get-model').click();
  const sources = page.getByTestId('model-sources');
  await expect(sources).toBeVisible();
  await expect(sources.getByTestId('catalog-model').first()).toContainText('qwen2.5-0.5b-instruct');
  await expect(sources.getByTestId('discovery-on')).toBeVisible();
  await expect(page.getByTestId('engine').filter({ hasText: 'built-in test engine' })).toHaveCount(1);
  await screenshot(page, 'settings-get-a-model');
});
