import type { Page } from '@playwright/test';
import type { E2eService } from './service.js';

/** One place of the UI to check: where it is, what shows it is ready, and how to open it (a dialog) once there. */
export interface Place {
  name: string;
  hash: string;
  ready: string;
  open?: (page: Page) => Promise<void>;
}

/**
 * A little of everything, through the API as a user would (on a fake runtime: the checks
 * are of the UI), and every view, box tab, settings section and dialog to visit. Used by the
 * accessibility and the layout passes (e2e/a11y.spec.ts, e2e/layout.spec.ts).
 */
export async function seedEveryView(svc: E2eService): Promise<Place[]> {
  const call = async (method: string, p: string, json?: unknown, body?: string) => {
    const res = await svc.api(p, { method, ...(json === undefined ? { body } : { json }) });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, any>>;
  };
  const app = await call('POST', '/v1/apps/find', { name: 'demo', mint_if_missing: true });
  const web = await call('POST', '/v1/boxes', { app_id: app.id, name: 'web-server-with-a-rather-long-name', size: 'm', ingress_ports: [8080] });
  const worker = await call('POST', '/v1/boxes', { app_id: app.id, name: 'worker' });
  await call('POST', `/v1/boxes/${worker.box_id}/checkpoint`, { name: 'clean' });
  await call('POST', `/v1/boxes/${worker.box_id}/fork`, { name: 'worker-try' });
  const vol = await call('POST', '/v1/box-volumes', { name: 'datasets' });
  await call('PUT', `/v1/box-volumes/${vol.volume_id}/files?path=${encodeURIComponent('readme.txt')}`, undefined, 'hello\n');
  await call('PUT', `/v1/box-volumes/${vol.volume_id}/files?path=${encodeURIComponent('raw/2026-11.csv')}`, undefined, 'a,b\n');
  await call('PUT', '/v1/secrets/GITHUB_TOKEN', { value: 'ghp_example_not_real' });
  const policy = await call('POST', '/v1/http-policies', {
    name: 'github-only',
    document: {
      'api.github.com': { rules: [{ match: { method: 'GET' }, request: { set: { headers: { authorization: 'Bearer ${secrets.GITHUB_TOKEN}' } } } }] },
    },
  });
  await call('POST', `/v1/boxes/${worker.box_id}/cron`, { schedule: '*/15 * * * *', command: 'echo tick && ./run-the-nightly-report --verbose' });
  const box = (tab: string) => `#/boxes/${web.box_id}/${tab}`;
  return [
    { name: 'boxes', hash: '#/boxes', ready: 'box-row' },
    {
      name: 'new-box-dialog',
      hash: '#/boxes',
      ready: 'box-row',
      open: (p) =>
        p
          .getByRole('button', { name: /new box/i })
          .first()
          .click(),
    },
    { name: 'box-terminal', hash: box('terminal'), ready: 'box-title' },
    { name: 'box-files', hash: box('files'), ready: 'drop-hint' },
    { name: 'box-console', hash: box('console'), ready: 'box-title' },
    { name: 'box-metrics', hash: box('metrics'), ready: 'box-title' },
    { name: 'box-checkpoints', hash: `#/boxes/${worker.box_id}/checkpoints`, ready: 'checkpoint-node' },
    { name: 'box-egress', hash: box('egress'), ready: 'egress' },
    { name: 'cron', hash: '#/cron', ready: 'view-cron' },
    { name: 'volumes', hash: `#/volumes/${vol.volume_id}`, ready: 'view-volumes' },
    { name: 'files', hash: `#/files/${web.box_id}`, ready: 'drop-hint' },
    { name: 'policies', hash: `#/policies/${policy.id}`, ready: 'view-policies' },
    { name: 'secrets', hash: '#/secrets', ready: 'view-secrets' },
    { name: 'ssh', hash: '#/ssh', ready: 'view-ssh' },
    { name: 'playground', hash: '#/playground', ready: 'view-playground' },
    { name: 'images', hash: '#/images', ready: 'view-images' },
    { name: 'settings-general', hash: '#/settings/general', ready: 'api-key-row' },
    { name: 'new-key-dialog', hash: '#/settings/general', ready: 'api-key-row', open: (p) => p.getByTestId('create-key').click() },
    { name: 'settings-integrations', hash: '#/settings/integrations', ready: 'mcp-tool' },
    { name: 'settings-engines', hash: '#/settings/engines', ready: 'engines-panel' },
    { name: 'settings-templates', hash: '#/settings/templates', ready: 'templates-panel' },
    { name: 'settings-service', hash: '#/settings/service', ready: 'service-log' },
    { name: 'palette', hash: '#/boxes', ready: 'box-row', open: (p) => p.keyboard.press('Control+k') },
  ];
}

/** Goes to a place (a hash change, as the app's own links do) and waits until it shows (and its dialog, if any, is open). */
export async function visit(page: Page, svc: E2eService, place: Place) {
  // close what the last place opened (a dialog, the palette)
  while (await page.locator('dialog[open], [data-testid="command-palette"]').count()) await page.keyboard.press('Escape');
  if (!page.url().startsWith(svc.url)) await page.goto(`${svc.url}/${place.hash}`);
  else await page.evaluate((h) => (location.hash = h), place.hash);
  await page.getByTestId(place.ready).first().waitFor({ timeout: 20_000 });
  if (place.open) {
    await place.open(page);
    await page.locator('dialog[open], [role="dialog"], [role="alertdialog"], [data-testid="command-palette"]').first().waitFor({ timeout: 10_000 });
  }
  await page.waitForTimeout(150); // first fetches settle
}
