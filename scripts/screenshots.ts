/**
 * `npm run screenshots`: every view of the UI at 1440 and 1100 px wide, in the dark and the
 * light theme, into docs/screenshots/ with an index (docs/screenshots/README.md).
 *
 * It starts the real service in-process on a fresh data dir with the fake box runtime (no
 * VMs: the shots are of the UI, and a fake box shows every view in a few seconds), seeds a
 * little of everything, and drives Debian's chromium with Playwright. Needs the built UI
 * (`npx electron-vite build` writes out/renderer).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { startService } from '../src-server/service.js';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { VIEWS } from '../src-renderer/app/nav.js';

const OUT = path.resolve('docs/screenshots');
const RENDERER = path.resolve('out/renderer');
const KEY = 'bxk_screenshots_key_000000000000000000000';
const WIDTHS = [1440, 1100, 760] as const;
const THEMES = ['dark', 'light'] as const;

interface Shot {
  name: string;
  title: string;
  hash: string;
  ready: string;
  /** Before the shot, once the view shows (open a dialog; stop the service's answers). */
  before?: (page: Page) => Promise<void>;
}

async function main() {
  if (!fs.existsSync(path.join(RENDERER, 'index.html'))) throw new Error('out/renderer/index.html is missing: run `npx electron-vite build` first.');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-shots-'));
  let rt: FakeRuntime | undefined;
  const quiet = { info() {}, warn() {}, error() {} };
  const svc = await startService({
    dataDir,
    port: 0,
    apiKey: KEY,
    webUiDir: RENDERER,
    log: quiet,
    runtime: (d) => (rt = new FakeRuntime(d)),
    tuning: { prepareTemplates: false },
  });
  const browser = await chromium.launch({
    executablePath: process.env.BOX_E2E_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const shots = await seed(svc.url, svc.ctx.log, rt!);
    fs.mkdirSync(OUT, { recursive: true });
    const rows: string[] = [];
    for (const shot of shots) {
      const cells: string[] = [];
      for (const theme of THEMES) {
        for (const width of WIDTHS) {
          const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: theme });
          const page = await ctx.newPage();
          await page.goto(await svc.loginUrl());
          await page.getByTestId('service-status').waitFor();
          const file = `${shot.name}-${theme}-${width}.png`;
          await capture(page, `${svc.url}/${shot.hash}`, shot.ready, path.join(OUT, file), shot.name.startsWith('settings'), shot.before);
          cells.push(`[${theme} ${width}](${file})`);
          await ctx.close();
          process.stdout.write(`${file}\n`);
        }
      }
      rows.push(`| ${shot.title} | ${cells.join(' · ')} |`);
    }
    fs.writeFileSync(path.join(OUT, 'README.md'), index(rows));
    process.stdout.write(`${shots.length * WIDTHS.length * THEMES.length} screenshots and the index in ${path.relative(process.cwd(), OUT)}/\n`);
  } finally {
    await browser.close();
    await svc.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function capture(page: Page, url: string, ready: string, file: string, fullPage: boolean, before?: (page: Page) => Promise<void>) {
  await page.goto(url);
  await page.getByTestId(ready).first().waitFor({ timeout: 20_000 });
  await page.waitForLoadState('networkidle').catch(() => {}); // live streams never idle: best effort
  await page.waitForTimeout(600); // let lists and charts settle after their first fetch
  if (before) await before(page);
  await page.screenshot({ path: file, fullPage });
}

/** A little of everything, through the API as a user would; answers the views to shoot. */
async function seed(url: string, log: { info(m: string): void; warn(m: string): void }, rt: FakeRuntime): Promise<Shot[]> {
  const call = async (method: string, p: string, json?: unknown, body?: string) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? body : JSON.stringify(json),
    });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, any>>;
  };
  const app = await call('POST', '/v1/apps/find', { name: 'demo', mint_if_missing: true });
  const web = await call('POST', '/v1/boxes', { app_id: app.id, name: 'web', size: 'm', ingress_ports: [8080] });
  const worker = await call('POST', '/v1/boxes', { app_id: app.id, name: 'worker' });
  const batch = await call('POST', '/v1/boxes', { app_id: app.id, name: 'batch' });
  await call('POST', `/v1/boxes/${batch.box_id}/sleep`, {});
  await call('POST', `/v1/boxes/${worker.box_id}/checkpoint`, { name: 'clean' });
  rt.writeConsole(
    web.box_id,
    '[    0.000000] Linux version 6.1.0 (debian) #1 SMP\n[    0.412345] virtio_blk virtio1: [vda] 8388608 512-byte logical blocks\n[  OK  ] Started getty@ttyS0.service.\n\nDebian GNU/Linux 12 web ttyS0\n\nweb login: ',
  );
  const vol = await call('POST', '/v1/box-volumes', { name: 'datasets' });
  await call('PUT', `/v1/box-volumes/${vol.volume_id}/files?path=${encodeURIComponent('readme.txt')}`, undefined, 'hello from a volume\n');
  await call('PUT', `/v1/box-volumes/${vol.volume_id}/files?path=${encodeURIComponent('raw/2026-11.csv')}`, undefined, 'a,b\n1,2\n');
  await call('PUT', '/v1/secrets/GITHUB_TOKEN', { value: 'ghp_example_not_real' });
  await call('POST', '/v1/http-policies', {
    name: 'github-only',
    document: {
      'api.github.com': { rules: [{ match: { method: 'GET' }, request: { set: { headers: { authorization: 'Bearer ${secrets.GITHUB_TOKEN}' } } } }] },
    },
  });
  await call('POST', `/v1/boxes/${worker.box_id}/cron`, { schedule: '*/15 * * * *', command: 'echo tick' });
  log.info('box web: started (fake runtime, for screenshots)');
  log.warn('inference: model list of engine "offline" unavailable: Upstream engine "offline" is unreachable: ECONNREFUSED');
  return [
    { name: 'boxes', title: 'Boxes', hash: '#/boxes', ready: 'box-row' },
    { name: 'box', title: 'Box · overview (ports with their URLs) and terminal', hash: `#/boxes/${web.box_id}`, ready: 'box-title' },
    { name: 'box-notebook', title: 'Box · Code (the notebook)', hash: `#/boxes/${web.box_id}/code`, ready: 'box-title' },
    { name: 'box-files', title: 'Box · Files (drop to upload)', hash: `#/boxes/${web.box_id}/files`, ready: 'drop-hint' },
    { name: 'box-console', title: 'Box · Console', hash: `#/boxes/${web.box_id}/console`, ready: 'console-text' },
    { name: 'box-metrics', title: 'Box · Metrics', hash: `#/boxes/${web.box_id}/metrics`, ready: 'box-title' },
    { name: 'box-checkpoints', title: 'Box · Checkpoints & forks', hash: `#/boxes/${worker.box_id}/checkpoints`, ready: 'box-title' },
    { name: 'box-egress', title: 'Box · Egress log', hash: `#/boxes/${web.box_id}/egress`, ready: 'egress' },
    { name: 'cron', title: 'Cron jobs', hash: '#/cron', ready: 'view-cron' },
    { name: 'volumes', title: 'Volumes', hash: `#/volumes/${vol.volume_id}`, ready: 'view-volumes' },
    { name: 'files', title: 'Files', hash: `#/files/${web.box_id}`, ready: 'view-files' },
    { name: 'policies', title: 'Policies', hash: '#/policies', ready: 'view-policies' },
    { name: 'secrets', title: 'Secrets', hash: '#/secrets', ready: 'view-secrets' },
    { name: 'ssh', title: 'SSH', hash: '#/ssh', ready: 'view-ssh' },
    { name: 'playground', title: 'Playground', hash: '#/playground', ready: 'view-playground' },
    // the chat view, once the renderer has one (views/chat, `chat` in app/nav.ts)
    ...(VIEWS.some((v) => (v.id as string) === 'chat') ? [{ name: 'chat', title: 'Chat', hash: '#/chat', ready: 'view-chat' }] : []),
    { name: 'images', title: 'Images', hash: '#/images', ready: 'view-images' },
    { name: 'settings', title: 'Settings · keys and credits', hash: '#/settings/general', ready: 'api-key-row' },
    { name: 'settings-integrations', title: 'Settings · Integrations (MCP snippets and tools)', hash: '#/settings/integrations', ready: 'mcp-tool' },
    { name: 'settings-engines', title: 'Settings · Engines and models', hash: '#/settings/engines', ready: 'engines-panel' },
    { name: 'settings-service', title: 'Settings · Quitting and the service log', hash: '#/settings/service', ready: 'service-log' },
    {
      name: 'service-down',
      title: 'The service stopped: the banner, states unknown, actions disabled',
      hash: `#/boxes/${web.box_id}`,
      ready: 'box-title',
      // the page as it is when the service stops answering (e2e/service-restart.spec.ts stops the real one)
      before: async (page) => {
        await page.route('**/v1/**', (r) => r.abort('connectionrefused'));
        await page.getByTestId('service-banner').waitFor({ timeout: 30_000 });
      },
    },
  ];
}

/**
 * Shots the e2e specs take of states a fake box or a seeded service cannot show (a real
 * notebook session, the real service stopped...): `E2E_DOC_SHOTS=1 npx playwright test <spec>`
 * writes them here (docShots in e2e/support/fixtures.ts), at the same widths and themes.
 */
const E2E_SHOTS: Array<[name: string, title: string, spec: string]> = [
  [
    'notebook-session',
    'Box · Code: a notebook session in a real box (cells edited and run again, one counter, a restore marker)',
    'notebook-terminal.spec.ts (a VM)',
  ],
  ['chat-conversation', 'Chat: a streamed conversation under its engine and model, an image attached, a tool call answered', 'chat.spec.ts'],
  ['service-restart', 'The real service stopped under an open page: the banner, states unknown, actions disabled', 'service-restart.spec.ts'],
  ['box-lineage-restored', 'Box · Checkpoints after a restore in place: the box is marked on the checkpoint it went back to', 'daily-driver.spec.ts'],
  ['box-confirm-sleep', 'Box · Sleep asks in a popover, with the consequence', 'daily-driver.spec.ts'],
  ['box-restore', 'Box · Restore in place: the dialog says what is lost, offers to checkpoint first', 'second-hour-more.spec.ts'],
  ['box-sleep-undo', 'Box · Sleep done, with Undo', 'second-hour-more.spec.ts'],
  ['playground-inbox', 'Playground · your own webhook inbox, the others listed', 'second-hour-more.spec.ts'],
];

function index(rows: string[]): string {
  const e2e = E2E_SHOTS.map(
    ([name, title, spec]) => `| ${title} (\`e2e/${spec}\`) | ${THEMES.flatMap((t) => WIDTHS.map((w) => `[${t} ${w}](${name}-${t}-${w}.png)`)).join(' · ')} |`,
  );
  return `# Screenshots

Every view of the UI at 1440, 1100 and 760 px wide (900 px tall; Settings sections as the whole page), in
the dark and the light theme (the app follows the system theme unless one is chosen). Made by \`npm run screenshots\` (scripts/screenshots.ts): the
real service on a fresh data dir with the fake box runtime and a little seeded data,
driven by Playwright in Debian's chromium. Rebuild the UI first (\`npx electron-vite build\`).

| view | shots |
|---|---|
${rows.join('\n')}

## From the e2e runs

States a seeded service with fake boxes cannot show. \`E2E_DOC_SHOTS=1 npx playwright test e2e/<spec>\` refreshes them
(one spec file at a time; the notebook's needs a VM: \`BOX_IMAGE_CACHE\`).

| state | shots |
|---|---|
${e2e.join('\n')}
`;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
