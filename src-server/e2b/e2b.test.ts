/**
 * E2B's REST API and envd's process service with the stock `e2b` SDK against the service
 * (fake runtime: host processes stand in for the VM, fast). The real-VM test is e2b.vm.test.ts.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { AuthenticationError, CommandExitError, Sandbox, SandboxNotFoundError, Volume, VolumeError } from 'e2b';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../test-support/harness.js';

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
    const err = await Volume.create('vol', opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VolumeError);
    expect((err as Error).message).toMatch(/501: .*volumes/);
    await expect(Sandbox.create('no-such-template', opts)).rejects.toThrow(/404: template 'no-such-template' not found/);
  });
});
