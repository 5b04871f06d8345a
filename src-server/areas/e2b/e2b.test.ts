/**
 * E2B's REST API and envd's process service with the stock `e2b` SDK against the service
 * (fake runtime: host processes stand in for the VM, fast). The real-VM test is e2b.vm.test.ts.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { AuthenticationError, CommandExitError, Sandbox, SandboxNotFoundError, Volume } from 'e2b';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let opts: { apiKey: string; apiUrl: string; sandboxUrl: string };

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2b-'), runtime: (d) => new FakeRuntime(d) });
  opts = { apiKey: svc.key, apiUrl: `${svc.url}/e2b/api`, sandboxUrl: `${svc.url}/e2b/sandbox` };
});
afterAll(async () => {
  await svc?.close();
});

describe('E2B SDK on the fake runtime', () => {
  it('creates, runs, lists, kills', async () => {
    const sbx = await Sandbox.create({ ...opts, metadata: { who: 'test' } });
    const r = await sbx.commands.run('echo hello');
    expect(r.stdout).toBe('hello\n');
    await expect(sbx.commands.run('exit 3')).rejects.toBeInstanceOf(CommandExitError);
    const page = await Sandbox.list({ ...opts, query: { metadata: { who: 'test' } } }).nextItems();
    expect(page.map((s) => s.sandboxId)).toEqual([sbx.sandboxId]);
    const info = await sbx.getInfo();
    expect(info.state).toBe('running');
    // getHost(port): Box's ingress, which reaches any port of the sandbox (network.test.ts, e2b VM tests)
    const host = `8080-${sbx.sandboxId}.box.localhost:${svc.ctx.services.ingress.port}`;
    expect(sbx.getHost(8080)).toBe(host);
    expect((await Sandbox.connect(sbx.sandboxId, opts)).getHost(8080)).toBe(host);
    expect(await sbx.kill()).toBe(true);
    await expect(Sandbox.getInfo(sbx.sandboxId, opts)).rejects.toBeInstanceOf(SandboxNotFoundError);
    expect(await Sandbox.kill(sbx.sandboxId, opts)).toBe(false);
  });

  it('requires a valid API key and the sandbox access token; keeps the local guard', async () => {
    await expect(Sandbox.list({ ...opts, apiKey: 'bxk_wrong' }).nextItems()).rejects.toBeInstanceOf(AuthenticationError);
    const sbx = await Sandbox.create(opts);
    const envd = (headers: Record<string, string>) =>
      fetch(`${opts.sandboxUrl}/health`, { headers: { 'E2b-Sandbox-Id': sbx.sandboxId, 'E2b-Sandbox-Port': '49983', ...headers } });
    expect((await envd({})).status).toBe(401);
    expect((await envd({ 'X-Access-Token': 'not-the-token' })).status).toBe(401);
    const wrongKey = await fetch(`${opts.apiUrl}/sandboxes/${sbx.sandboxId}`, { headers: { 'X-API-Key': 'bxk_nope' } });
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.json()).toMatchObject({ code: 401 });
    const other = await fetch(`${opts.sandboxUrl}/health`, {
      headers: { 'E2b-Sandbox-Id': 'box_00000000-0000-4000-8000-000000000000', 'X-Access-Token': 'x' },
    });
    expect(other.status).toBe(502);
    // a browser page elsewhere, and DNS rebinding, are refused as on every route
    const cross = await fetch(`${opts.apiUrl}/v2/sandboxes`, { headers: { 'X-API-Key': svc.key, Origin: 'https://evil.example' } });
    expect(cross.status).toBe(403);
    const port = new URL(svc.url).port;
    const rebound = await new Promise<number>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port, path: '/e2b/api/v2/sandboxes', headers: { Host: 'evil.example', 'X-API-Key': svc.key } }, (res) =>
          resolve(res.statusCode!),
        )
        .on('error', reject),
    );
    expect(rebound).toBe(403);
    expect(await sbx.kill()).toBe(true);
  });

  it('names what it does not support', async () => {
    const vol = await Volume.create('vol', opts);
    const unknown = await fetch(`${opts.apiUrl}/no-such-route`, { headers: { 'X-API-Key': opts.apiKey } });
    expect(unknown.status).toBe(501);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/does not support GET \/no-such-route/);
    await expect(Sandbox.create('no-such-template', opts)).rejects.toThrow(/404: template 'no-such-template' not found/);
    // create options Box cannot keep are refused, not dropped: no sandbox runs with a restriction it does not have
    await expect(Sandbox.create({ ...opts, network: { maskRequestHost: 'x.example\r\nX-Evil: 1' } })).rejects.toThrow(
      /400: .*network\.maskRequestHost.*host name/,
    );
    await expect(Sandbox.create({ ...opts, network: { allowOut: ['10.0.0.0/8'] } })).rejects.toThrow(/400: .*network\.allowOut\[0\].*address range/);
    await expect(Sandbox.create({ ...opts, network: { httpsPorts: [443] } })).rejects.toThrow(/501: .*httpsPorts/);
    expect(await Volume.destroy(vol.volumeId, opts)).toBe(true);
    expect((await Sandbox.list(opts).nextItems()).length).toBe(0);
  });

  it('serves the SDK signed file URLs and the older create and list routes', async () => {
    const sbx = await Sandbox.create(opts);
    await sbx.files.write('/data/signed.txt', 'signed content');
    const down = await sbx.downloadUrl('/data/signed.txt');
    expect(new URL(down).pathname).toBe('/files');
    expect(await (await fetch(down)).text()).toBe('signed content');
    const form = new FormData();
    form.append('file', new Blob(['uploaded by url']), 'up.txt');
    const up = await sbx.uploadUrl('/data/up.txt');
    expect((await fetch(up, { method: 'POST', body: form })).status).toBe(200);
    expect(await sbx.files.read('/data/up.txt')).toBe('uploaded by url');
    const forged = new URL(down);
    forged.searchParams.set('path', '/etc/passwd');
    expect((await fetch(forged)).status).toBe(401);
    const expired = await sbx.downloadUrl('/data/signed.txt', { useSignatureExpiration: -10 });
    expect((await fetch(expired)).status).toBe(401);

    const h = { 'X-API-Key': svc.key, 'Content-Type': 'application/json' };
    const v1 = await fetch(`${opts.apiUrl}/sandboxes`, { method: 'POST', headers: h, body: JSON.stringify({ templateID: 'base', metadata: { v: '1' } }) });
    expect(v1.status).toBe(201);
    const made = (await v1.json()) as { sandboxID: string; envdVersion: string; envdAccessToken: string };
    expect(made.envdVersion).toBe('0.6.4');
    expect(made.envdAccessToken).toBeTruthy();
    const listed = (await (await fetch(`${opts.apiUrl}/sandboxes?metadata=v%3D1`, { headers: h })).json()) as Array<{ sandboxID: string; state: string }>;
    expect(listed).toEqual([expect.objectContaining({ sandboxID: made.sandboxID, state: 'running' })]);
    expect((await fetch(`${opts.apiUrl}/sandboxes/${made.sandboxID}`, { method: 'DELETE', headers: h })).status).toBe(204);
    const gone = await fetch(`${opts.apiUrl}/sandboxes/${made.sandboxID}`, { headers: h });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ code: 404, message: `Sandbox ${made.sandboxID} not found` });
    await sbx.kill();
  });

  it('lists newest first, page by page (limit, nextToken), with states, startedAfter and order', async () => {
    const tag = { list: 'paged' };
    const a = await Sandbox.create({ ...opts, metadata: tag });
    const b = await Sandbox.create({ ...opts, metadata: tag });
    const c = await Sandbox.create({ ...opts, metadata: tag });
    expect(await b.pause()).toBe(true);
    const ids = (list: Array<{ sandboxId: string }>) => list.map((s) => s.sandboxId);
    const pages = Sandbox.list({ ...opts, query: { metadata: tag }, limit: 2 });
    const first = await pages.nextItems();
    expect(ids(first)).toEqual([c.sandboxId, b.sandboxId]);
    expect(first.map((s) => s.state)).toEqual(['running', 'paused']);
    expect(pages.hasNext).toBe(true);
    // a sandbox killed between two pages shifts nothing out of the next one
    await c.kill();
    expect(ids(await pages.nextItems())).toEqual([a.sandboxId]);
    expect(pages.hasNext).toBe(false);
    expect(ids(await Sandbox.list({ ...opts, query: { metadata: tag, state: ['paused'] } }).nextItems())).toEqual([b.sandboxId]);
    expect(ids(await Sandbox.list({ ...opts, query: { metadata: tag, state: ['running'] } }).nextItems())).toEqual([a.sandboxId]);
    const startedB = (await b.getInfo()).startedAt;
    expect(ids(await Sandbox.list({ ...opts, query: { metadata: tag, startedAfter: startedB } }).nextItems())).toEqual([b.sandboxId]);
    expect(ids(await Sandbox.list({ ...opts, query: { metadata: tag }, order: 'asc' }).nextItems())).toEqual([a.sandboxId, b.sandboxId]);
    // the older route lists the running ones
    const h = { 'X-API-Key': svc.key };
    const v1 = (await (await fetch(`${opts.apiUrl}/sandboxes?metadata=list%3Dpaged`, { headers: h })).json()) as Array<{ sandboxID: string }>;
    expect(v1.map((s) => s.sandboxID)).toEqual([a.sandboxId]);
    for (const q of ['limit=0', 'limit=101', 'nextToken=not-a-token', 'state=gone', 'startedAfter=yesterday']) {
      const res = await fetch(`${opts.apiUrl}/v2/sandboxes?${q}`, { headers: h });
      expect(res.status, q).toBe(400);
      expect(await res.json()).toEqual({ code: 400, message: expect.any(String) });
    }
    await a.kill();
    await Sandbox.kill(b.sandboxId, opts);
  });
});
