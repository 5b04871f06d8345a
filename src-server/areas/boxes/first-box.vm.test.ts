/**
 * A fresh install's first box (issue 35): a service started as `npm start` starts it (the
 * default template prepared at start, a first box that does not wait for it, the guest
 * image in layers) on an EMPTY image cache. The image's base is built from nothing (no code
 * interpreter); the first create waits for it only, then cold-boots from it while the
 * template builds and the code interpreter's layer is built over the base in the
 * background. A Python cell in that first box is answered at once with a 409 that names
 * the layer being prepared and its time left (bash cells run). The stages show in GET
 * /v1/status and `box status`, their time left never going up; once the layer lands the
 * template is built again on the full image, and a box created then runs `1+1`.
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
  const seen: { at: number; stages: PreparationStage[]; cpu: number }[] = [];
  /** CPU seconds of this process's waited-for children: the image's recipe scripts (QEMU daemonizes: not counted). */
  const childCpu = () => {
    const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  };
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
    svc = await startTestService({ tuning: { prepareTemplates: true, coldWhileTemplateBuilds: true, layeredImage: true } });
    poll = (async () => {
      while (polling) {
        const st = (await (await svc.api('/v1/status')).json()) as { preparation: unknown };
        seen.push({ at: Date.now(), stages: Preparation.parse(st.preparation).stages, cpu: childCpu() });
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

  const code = async (id: string, body: Record<string, unknown>) => {
    const res = await svc.api(`/v1/boxes/${id}/code/run`, { method: 'POST', json: body });
    return { status: res.status, json: (await res.json()) as any };
  };
  const stage = async (name: string) => {
    const res = await svc.api('/v1/status');
    const body = (await res.json()) as { preparation?: unknown };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return Preparation.parse(body.preparation).stages.find((s) => s.name === name);
  };

  it('builds the base, runs the first box on it before the template and the code layer, then the code layer lands and a new box has it', async () => {
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

    // the first box runs on the base: Python is there, the code interpreter's stack is not
    expect((await exec(first.json.box_id, 'python3 -c "import ipykernel" 2>/dev/null; echo $?; command -v node || echo no-node')).trim()).toBe('1\nno-node');
    const layer = await stage('code');
    expect(layer?.state, 'the code layer is built after the first box runs').toBe('running');
    // a Python cell is answered at once, naming what is being prepared and the time left
    const py = await code(first.json.box_id, { code: '1+1' });
    expect(py.status, JSON.stringify(py.json)).toBe(409);
    expect(py.json.error.type).toBe('conflict_error');
    expect(py.json.error.code).toBe('failed_precondition');
    expect(py.json.error.param).toBe('language');
    const layerNow = await stage('code');
    if (layerNow?.state === 'running')
      expect(py.json.error.message).toMatch(
        /no python runtime: .* is being prepared: \d+%, (about \d+ s left|any moment now|usually about \d+ s).* create a new box then/,
      );
    else expect(py.json.error.message).toMatch(/It is ready now: boxes created from now on have it/);
    expect((await code(first.json.box_id, { code: '1+1', language: 'javascript' })).json.error?.message).toMatch(/no javascript runtime/);
    // bash cells run in a box on the base
    const sh = await code(first.json.box_id, { code: 'echo from-bash', language: 'bash' });
    expect(sh.status, JSON.stringify(sh.json)).toBe(200);
    expect(sh.json.stdout).toBe('from-bash\n');

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
    expect(cli.stdout).toMatch(/Warm template .*: (ready|\d+% .*\((about .* left|usually about .*|taking longer.*)\))/);
    expect(cli.stdout).toMatch(/Code interpreter .*: (ready|\d+% .*\((about .* left|usually about .*|taking longer.*)\))/);

    // the code layer lands (minutes under TCG), then the template is built again on the full image
    const deadline = Date.now() + 1_500_000;
    let done: PreparationStage | undefined;
    while ((done = await stage('code'))?.state !== 'ready' && Date.now() < deadline) {
      expect(done?.state, done?.error ?? '').not.toBe('failed');
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect(done?.state).toBe('ready');
    const landed = Date.parse(done!.updated_at!);
    expect(landed).toBeGreaterThan(t0 + firstMs); // the first box had not waited for it
    type Tpl = { template_id: string; state: string; built_at: string | null };
    let full: Tpl | undefined;
    while (!full && Date.now() < deadline) {
      const list = ((await (await svc.api('/v1/templates')).json()) as { data: Tpl[] }).data;
      expect(list.filter((t) => t.state === 'failed')).toEqual([]);
      full = list.find((t) => t.state === 'ready' && Date.parse(t.built_at!) > landed);
      if (!full) await new Promise((r) => setTimeout(r, 2000));
    }
    expect(full, 'a template built on the full image').toBeDefined();
    await templatesReady(svc);
    const templates = (await (await svc.api('/v1/templates')).json()) as { data: Tpl[] };
    // the base's template (made while the first box ran; it keeps serving boxes made from it) and the full image's
    expect(templates.data).toHaveLength(2);
    // (the base's built while the first box cold-booted: that box came from a boot, not from it)
    for (const t of templates.data) expect(Date.parse(t.built_at!)).toBeGreaterThan(t0);

    // once the template is ready, a create is a clone again, with the code interpreter
    const second = await postLong(`${svc.url}/v1/boxes`, svc.key, { app_id: app.id, name: 'second' });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    expect(['template', 'warm_pool']).toContain(second.json.last_start.from);
    expect((await exec(second.json.box_id, 'echo second')).trim()).toBe('second');
    const two = await code(second.json.box_id, { code: '1+1' });
    expect(two.status, JSON.stringify(two.json)).toBe(200);
    expect(two.json.results.find((r: { is_main_result: boolean }) => r.is_main_result)?.['text/plain']).toBe('2');
    const codeMs = Date.now() - t0;
    expect((await code(second.json.box_id, { code: '[1, 2].length', language: 'javascript' })).json.results?.[0]?.['text/plain']).toBe('2');

    // the stages as GET /v1/status showed them: the template stage ran, then turned ready,
    // and while a stage ran its time left never went up
    polling = false;
    await poll;
    const tpl = seen.map((s) => s.stages.find((x) => x.name === 'template')).filter((x) => x !== undefined);
    expect(tpl.some((s) => s.state === 'running')).toBe(true);
    expect(tpl.at(-1)!.state).toBe('ready');
    for (const name of ['image', 'template', 'code'] as const) {
      const etas = seen
        .map((s) => s.stages.find((x) => x.name === name))
        .filter((s) => s?.state === 'running' && s.eta_seconds !== null)
        .map((s) => ({ run: s!.started_at, eta: s!.eta_seconds! }));
      for (let i = 1; i < etas.length; i++)
        if (etas[i]!.run === etas[i - 1]!.run) expect(etas[i]!.eta, `${name} time left`).toBeLessThanOrEqual(etas[i - 1]!.eta);
    }
    expect(seen.some((s) => s.stages.find((x) => x.name === 'image')?.state === 'running')).toBe(true); // the image was built here
    expect(seen.some((s) => s.stages.find((x) => x.name === 'code')?.state === 'running')).toBe(true);
    // the figures of this run (BENCHMARKS.md, "Guest image and the first box"), with the load
    const when = (name: string) => seen.find((s) => s.stages.find((x) => x.name === name)?.state === 'ready');
    const [base, built] = [when('image')!, when('code')!];
    const sec = (ms: number) => (ms / 1000).toFixed(1);
    console.log(
      `first-run figures: base image ready ${sec(base.at - t0)} s (its build ${base.cpu.toFixed(1)} CPU s), first box running ${sec(firstMs)} s, ` +
        `code layer ready ${sec(built.at - t0)} s (${(built.cpu - base.cpu).toFixed(1)} CPU s more), a new box's 1+1 answered ${sec(codeMs)} s; load ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  }, 1_800_000);
});
