/**
 * A fresh install's first box (issue 35): a service started as `npm start` starts it (the
 * default template prepared at start, a first box that does not wait for it) on an EMPTY
 * image cache. The guest image is built from nothing; the first create waits for it, then
 * cold-boots from the image while the template builds in the background; the template
 * stage shows in GET /v1/status and `box status`, its time left never going up; once it is
 * ready, boxes are clones again.
 *
 * Slow (the image build from nothing: mmdebstrap and the ext4 image, minutes under load),
 * so it runs when BOX_SLOW_VM=1 asks for it; otherwise its test counts as skipped, by name.
 * apt's downloaded .debs (no part of the image: a package download cache) are hard-linked
 * from the usual image cache when it has them, so the run needs no network; every image
 * part is built here.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-cli/test-support/cli.js';
import { Preparation, type PreparationStage } from '@box/contract/preparation';
import { readExecStream } from '../../test-support/exec-stream.js';
import { startTestService, templatesReady, terminateBoxes, type TestService } from '../../test-support/harness.js';

const RUN = process.env.BOX_SLOW_VM === '1';
const sharedCache = process.env.BOX_IMAGE_CACHE;

/** A POST that may wait minutes for its answer (fetch gives up on headers after 300 s). */
function postLong(url: string, key: string, body: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

describe.skipIf(!RUN)('the first box on a fresh install (empty image cache)', () => {
  let svc: TestService;
  let cache: string;
  const seen: { at: number; stages: PreparationStage[] }[] = [];
  let polling = true;
  let poll: Promise<void>;

  beforeAll(async () => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'box-first-box-cache-'));
    const debs = sharedCache && path.join(sharedCache, 'images', 'debian', 'parts', 'debs');
    if (debs && fs.existsSync(debs)) {
      const dst = path.join(cache, 'images', 'debian', 'parts', 'debs');
      fs.mkdirSync(dst, { recursive: true });
      for (const f of fs.readdirSync(debs)) if (f.endsWith('.deb')) fs.linkSync(path.join(debs, f), path.join(dst, f));
    }
    process.env.BOX_IMAGE_CACHE = cache; // read per call (settings.ts boxEnv)
    // as `npm start` runs it: the default template prepared at start, the first box not waiting for it
    svc = await startTestService({ tuning: { prepareTemplates: true, coldWhileTemplateBuilds: true } });
    poll = (async () => {
      while (polling) {
        const st = (await (await svc.api('/v1/status')).json()) as { preparation: unknown };
        seen.push({ at: Date.now(), stages: Preparation.parse(st.preparation).stages });
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
  }, 120_000);

  afterAll(async () => {
    polling = false;
    await poll;
    if (svc) {
      await terminateBoxes(svc);
      await svc.close();
    }
    if (sharedCache === undefined) delete process.env.BOX_IMAGE_CACHE;
    else process.env.BOX_IMAGE_CACHE = sharedCache;
    fs.rmSync(cache, { recursive: true, force: true });
  }, 300_000);

  const exec = async (id: string, command: string) => {
    const { exit, stdout } = readExecStream(await (await svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command } })).text());
    expect(exit?.status).toBe('succeeded');
    return stdout;
  };

  it('builds the image, runs the first box before the template, shows the template being prepared, then clones', async () => {
    // nothing built yet (the build started with the service: the default template needs the image)
    const root = path.join(cache, 'images', 'debian');
    expect(fs.readdirSync(root).filter((d) => fs.existsSync(path.join(root, d, 'image.json')))).toEqual([]);
    const app = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'first', mint_if_missing: true } })).json()) as { id: string };
    const t0 = Date.now();
    const first = await postLong(`${svc.url}/v1/boxes`, svc.key, { app_id: app.id, name: 'first' });
    const firstMs = Date.now() - t0;
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json.status).toBe('running');
    // a cold boot from the image: the template was not ready, and the box did not wait for it
    expect(first.json.last_start.from).toBe('boot');
    expect((await exec(first.json.box_id, 'echo first')).trim()).toBe('first');

    // a fork of the cold-booted box (its own RAM file: save, checkpoint, restore): the child
    // has the parent's memory, its own writes stay its own, and it outlives its parent
    await exec(first.json.box_id, 'echo parent > /dev/shm/mark');
    const fork = (await (await svc.api(`/v1/boxes/${first.json.box_id}/fork`, { method: 'POST', json: { name: 'child' } })).json()) as {
      boxes: { box_id: string; status: string }[];
    };
    const child = fork.boxes[0]!.box_id;
    expect(fork.boxes[0]!.status).toBe('running');
    expect((await exec(child, 'cat /dev/shm/mark')).trim()).toBe('parent');
    await exec(child, 'echo child > /dev/shm/mark');
    expect((await exec(first.json.box_id, 'cat /dev/shm/mark')).trim()).toBe('parent');
    expect((await svc.api(`/v1/boxes/${first.json.box_id}/terminate`, { method: 'POST' })).status).toBe(200);
    expect((await exec(child, 'cat /dev/shm/mark')).trim()).toBe('child');

    // `box status` names what is being prepared (the template stage exists once its build started)
    const cli = await runCli({ BOX_URL: svc.url, BOX_API_KEY: svc.key }, ['status']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/Guest image .*: ready/);
    expect(cli.stdout).toMatch(/Warm template .*: (ready|\d+% .*\((about .* left|usually about .*)\))/);

    await templatesReady(svc);
    const templates = (await (await svc.api('/v1/templates')).json()) as { data: { state: string; built_at: string }[] };
    expect(templates.data).toHaveLength(1);
    // the template was finished after the first box ran: the box had not waited for it
    expect(Date.parse(templates.data[0]!.built_at)).toBeGreaterThan(t0 + firstMs);

    // once the template is ready, a create is a clone again
    const second = await postLong(`${svc.url}/v1/boxes`, svc.key, { app_id: app.id, name: 'second' });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    expect(['template', 'warm_pool']).toContain(second.json.last_start.from);
    expect((await exec(second.json.box_id, 'echo second')).trim()).toBe('second');

    // the stages as GET /v1/status showed them: the template stage ran, then turned ready,
    // and while a stage ran its time left never went up
    polling = false;
    await poll;
    const tpl = seen.map((s) => s.stages.find((x) => x.name === 'template')).filter((x) => x !== undefined);
    expect(tpl.some((s) => s.state === 'running')).toBe(true);
    expect(tpl.at(-1)!.state).toBe('ready');
    for (const name of ['image', 'template'] as const) {
      const etas = seen
        .map((s) => s.stages.find((x) => x.name === name))
        .filter((s) => s?.state === 'running' && s.eta_seconds !== null)
        .map((s) => ({ run: s!.started_at, eta: s!.eta_seconds! }));
      for (let i = 1; i < etas.length; i++)
        if (etas[i]!.run === etas[i - 1]!.run) expect(etas[i]!.eta, `${name} time left`).toBeLessThanOrEqual(etas[i - 1]!.eta);
    }
    expect(seen.some((s) => s.stages.find((x) => x.name === 'image')?.state === 'running')).toBe(true); // the image was built here
  }, 1_800_000);
});
