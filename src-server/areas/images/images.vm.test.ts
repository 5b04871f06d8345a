/**
 * Real microVMs (TCG here): an OCI archive made by the test imports and runs its Cmd; a
 * Boxfile with an apt-get install and a copied folder builds inside builder boxes, a box
 * from it has both; changing the last line rebuilds only that step (cold and cached build
 * times printed and written to $BOX_BENCH_OUT when set); images in use cannot be deleted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService, terminateBoxes } from '../../test-support/harness.js';
import { BuildError, buildImage } from './index.js';
import { ImageStore } from './image-store.js';
import { importOciArchive } from './oci-import.js';
import { makeTestDockerArchive, TEST_CMD_MARKER } from './test-support/archive.js';

const VM_TIMEOUT = 240_000;
let svc: TestService;
let appId: string;

const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};
async function sh(id: string, command: string): Promise<string> {
  const res = await svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command } });
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data?: string });
  return Buffer.concat(events.filter((e) => e.type === 'stdout').map((e) => Buffer.from(e.data!, 'base64'))).toString();
}
async function waitFor(id: string, command: string, want: RegExp, ms = 30_000): Promise<string> {
  const until = Date.now() + ms;
  let out = '';
  while (Date.now() < until) {
    out = await sh(id, command);
    if (want.test(out)) return out;
    await new Promise((r) => setTimeout(r, 500));
  }
  return out;
}

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bximg-') });
  appId = (await post('/v1/apps/find', { name: 'img', mint_if_missing: true })).id;
}, VM_TIMEOUT);
afterAll(async () => {
  await terminateBoxes(svc);
  await svc.close();
}, VM_TIMEOUT);

describe('images on real VMs', () => {
  it('refuses an unknown image at create, naming the field', async () => {
    const res = await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'nope', image: 'no-such-image' } });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.param).toBe('image');
    expect(err.message).toContain('debian');
  });

  it(
    'imports an OCI archive made from a few files and runs its Cmd; in use it cannot be deleted',
    async () => {
      const archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'oci-')), 'bb.tar');
      await makeTestDockerArchive(archive);
      await importOciArchive(new ImageStore(svc.dataDir), archive, 'bb');
      const list = await (await svc.api('/v1/images')).json();
      expect(list.data.map((i: { name: string }) => i.name)).toEqual(['debian', 'bb']);
      expect(list.data[1]).toMatchObject({ source: 'oci', base: null, boxes: [] });

      const box = await post('/v1/boxes', { app_id: appId, name: 'bb1', image: 'bb' });
      expect(box.status).toBe('running');
      expect(box.image).toBe('bb');
      // the supervisor's "[box] starting: ..." line quotes the command itself: wait for its expanded output
      const log = await waitFor(box.box_id, 'cat /var/log/box-cmd.log', new RegExp(`${TEST_CMD_MARKER} hello-oci from /app`));
      expect(log).toContain(`${TEST_CMD_MARKER} hello-oci from /app`);
      expect(await sh(box.box_id, 'echo $GREETING; ls /old; ls /opq; stat -c "%u:%g %a" /app/hello.txt')).toBe('hello-oci\nkept.txt\nb.txt\n1000:1000 640\n');
      expect(await sh(box.box_id, 'pwd')).toBe('/app\n'); // WorkingDir is the default cwd of execs

      const del = await svc.api('/v1/images/bb', { method: 'DELETE' });
      expect(del.status).toBe(409);
      const err = await errorOf(del);
      expect(err.code).toBe('image_in_use');
      expect(err.message).toContain(box.box_id);
      expect((await (await svc.api('/v1/images/bb')).json()).boxes).toEqual([box.box_id]);

      await post(`/v1/boxes/${box.box_id}/terminate`);
      expect((await svc.api('/v1/images/bb', { method: 'DELETE' })).status).toBe(200);
      expect((await svc.api('/v1/images/bb')).status).toBe(404);
      expect((await svc.api('/v1/images/debian', { method: 'DELETE' })).status).toBe(409);
    },
    VM_TIMEOUT,
  );

  it('builds a Boxfile in builder boxes; a change to the last line rebuilds only that step', async () => {
    const ctx = fs.mkdtempSync(path.join(os.tmpdir(), 'bctx-'));
    fs.mkdirSync(path.join(ctx, 'site', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(ctx, 'site', 'index.html'), '<h1>hi</h1>\n');
    fs.writeFileSync(path.join(ctx, 'site', 'sub', 'x.txt'), 'nested\n');
    const boxfile = (stamp: string) => `# test image
FROM debian
RUN apt-get update -q && apt-get install -y -q --no-install-recommends tree
COPY --chmod=755 site /srv/site
ENV GREETING=built
WORKDIR /srv
CMD ["/bin/sh", "-c", "echo started $GREETING in $(pwd)"]
RUN echo ${stamp} > /etc/stamp
`;
    const store = new ImageStore(svc.dataDir);
    const out: string[] = [];
    let t = Date.now();
    const cold = await buildImage({ store, boxfile: boxfile('v1'), context: ctx, name: 'web', onEvent: (e) => e.type === 'output' && out.push(e.text) });
    const coldSeconds = (Date.now() - t) / 1000;
    expect(cold.steps.filter((s) => !s.cached).map((s) => s.line)).toEqual([3, 4, 8]);
    expect(out.join('')).toMatch(/Setting up tree/);

    t = Date.now();
    const warm = await buildImage({ store, boxfile: boxfile('v2'), context: ctx, name: 'web' });
    const cachedSeconds = (Date.now() - t) / 1000;
    expect(warm.steps.filter((s) => !s.cached).map((s) => s.text)).toEqual(['RUN echo v2 > /etc/stamp']);
    console.log(
      `Boxfile build (apt-get install + COPY + 1 RUN): cold ${coldSeconds.toFixed(1)} s, last line changed ${cachedSeconds.toFixed(1)} s (${(coldSeconds / cachedSeconds).toFixed(1)}x)`,
    );
    if (process.env.BOX_BENCH_OUT) fs.writeFileSync(process.env.BOX_BENCH_OUT, JSON.stringify({ coldSeconds, cachedSeconds }));

    const img = await (await svc.api('/v1/images/web')).json();
    expect(img).toMatchObject({ source: 'boxfile', base: 'debian', config: { env: { GREETING: 'built' }, workdir: '/srv' } });
    const box = await post('/v1/boxes', { app_id: appId, name: 'web1', image: 'web' });
    expect(box.status).toBe('running');
    expect(await sh(box.box_id, 'tree --version >/dev/null && echo has-tree; cat /srv/site/sub/x.txt /etc/stamp; stat -c %a /srv/site/index.html')).toBe(
      'has-tree\nnested\nv2\n755\n',
    );
    expect(await waitFor(box.box_id, 'cat /var/log/box-cmd.log', /started built in \/srv/)).toContain('started built in /srv');
  }, 1_200_000);

  it(
    'a failing step leaves a readable error and no image; the builder only reaches package registries',
    async () => {
      const store = new ImageStore(svc.dataDir);
      const infos: string[] = [];
      const boxfile = 'FROM debian\nRUN curl -s -o /dev/null -w "example.com answered %{http_code}\\n" http://example.com/; echo about to fail >&2; exit 3\n';
      const err = await buildImage({ store, boxfile, context: os.tmpdir(), name: 'broken', onEvent: (e) => e.type === 'info' && infos.push(e.text) }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(BuildError);
      expect((err as Error).message).toMatch(/line 2.*exit 3[\s\S]*about to fail/);
      expect((err as Error).message).toContain('example.com answered 403');
      expect(infos).toContain('egress refused: example.com:80 (builder policy)');
      expect(store.has('broken')).toBe(false);
    },
    VM_TIMEOUT,
  );
});
