/**
 * E2B's secrets, volumes and template listing on Box's (issue 33), with the stock `e2b` SDK
 * on the fake runtime: an E2B secret is a Box secret (never shown, put in by the egress
 * proxy), an E2B volume a Box volume (mounted with volumeMounts), each visible from both
 * APIs. Template builds: e2b-template-builds.test.ts. The real-VM side is
 * e2b-features.vm.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Sandbox, Secret, SecretNotFoundError, Volume, VolumeNotFoundError, VolumePathNotFoundError } from 'e2b';
import { boxSecretName, boxSecretRefs } from './secrets.js';
import { e2bTestService } from './test-support/e2b-env.js';

const t = e2bTestService('bxe2brest-');

describe('E2B secrets are Box secrets', () => {
  it('maps names and placeholders onto Box secret names', () => {
    expect(boxSecretName('OpenAI-API-Key')).toBe('openai_api_key');
    expect(() => boxSecretName('sec_abc')).toThrow(/kept for secret ids/);
    expect(() => boxSecretName('has space')).toThrow(/^name: "has space" must start/);
    expect(boxSecretRefs('Bearer ${e2b.secrets.openai-api-key}', 'p')).toBe('Bearer ${secrets.openai_api_key}');
    expect(boxSecretRefs('${e2b.secrets.BOX_MADE}', 'p')).toBe('${secrets.BOX_MADE}');
  });

  it('creates, reads, versions, lists and destroys through the SDK; the value is never shown and lives in Box', async () => {
    const made = await Secret.create('OpenAI-Key', 'sk-test-value', { ...t.opts, metadata: { env: 'test' } });
    expect(made.secretId).toMatch(/^sec_/);
    expect(made.name).toBe('openai-key');
    expect(made.version).toBe(1);
    expect(made.metadata).toEqual({ env: 'test' });
    expect(made.createdAt).toBeInstanceOf(Date);
    // Box's own API has it under its Box name, metadata only
    const boxMeta = await t.svc.api('/v1/secrets/openai_key');
    expect(boxMeta.status).toBe(200);
    expect(JSON.stringify(await boxMeta.json())).not.toContain('sk-test-value');
    const raw = await (await t.e2b(`/secrets/${made.secretId}`)).text();
    expect(raw).not.toContain('sk-test-value');

    expect((await Secret.getInfo('openai-key', t.opts)).secretId).toBe(made.secretId);
    expect((await Secret.getInfo(made.secretId, t.opts)).name).toBe('openai-key');
    const v2 = await Secret.update(made.secretId, 'sk-rotated', { ...t.opts, metadata: { env: 'prod' } });
    expect(v2.version).toBe(2);
    expect(v2.metadata).toEqual({ env: 'prod' });
    await expect(Secret.update('missing', 'x', t.opts)).rejects.toThrow(SecretNotFoundError);
    await expect(Secret.getInfo('missing', t.opts)).rejects.toThrow(SecretNotFoundError);

    // a Box secret shows in E2B's list; a change through Box's API is a new E2B version
    expect((await t.svc.api('/v1/secrets/BOX_MADE', { method: 'PUT', json: { value: 'b1' } })).status).toBe(200);
    await Secret.create('key-c', 'c', t.opts);
    const pages = Secret.list({ ...t.opts, limit: 2 });
    const first = await pages.nextItems();
    expect(first).toHaveLength(2);
    expect(pages.hasNext).toBe(true);
    const second = await pages.nextItems();
    expect(pages.hasNext).toBe(false);
    expect([...first, ...second].map((s) => s.name).sort()).toEqual(['BOX_MADE', 'key-c', 'openai-key']);
    const boxMade = await Secret.getInfo('BOX_MADE', t.opts);
    expect(boxMade.version).toBe(1);
    await new Promise((r) => setTimeout(r, 5));
    await t.svc.api('/v1/secrets/BOX_MADE', { method: 'PUT', json: { value: 'b2' } });
    expect((await Secret.getInfo('BOX_MADE', t.opts)).version).toBe(2);

    expect(await Secret.destroy('openai-key', t.opts)).toBe(true);
    expect((await t.svc.api('/v1/secrets/openai_key')).status).toBe(404);
    expect(await Secret.exists(made.secretId, t.opts)).toBe(false);
    expect(await Secret.destroy('missing', t.opts)).toBe(false);
    // deleted through Box's API: gone from E2B's too
    await t.svc.api('/v1/secrets/key_c', { method: 'DELETE' });
    expect(await Secret.exists('key-c', t.opts)).toBe(false);
  });

  it("refuses bad input with E2B's error naming the field", async () => {
    const bad = async (body: unknown, field: RegExp, status = 400) => {
      const res = await t.e2b('/secrets', { method: 'POST', json: body });
      expect(res.status).toBe(status);
      const err = (await res.json()) as { code: number; message: string };
      expect(err.code).toBe(status);
      expect(err.message).toMatch(field);
    };
    await bad({ name: 'has space', value: 'v' }, /name/);
    await bad({ name: 'ok' }, /value/);
    await bad({ name: 'ok', value: 'x'.repeat(64 * 1024 + 1) }, /value.*64 KiB/);
    await bad({ name: 'ok', value: 'v', metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) }, /metadata.*32 entries/);
    await Secret.create('twice', 'v', t.opts);
    await bad({ name: 'TWICE', value: 'v' }, /already exists/, 409);
    expect((await t.e2b('/secrets?limit=0')).status).toBe(400);
    expect((await t.e2b('/secrets?nextToken=abc')).status).toBe(400);
    await Secret.destroy('twice', t.opts);
  });

  it("a network rule's Secret.fill placeholder is the Box secret reference in the sandbox's HTTP policy", async () => {
    await Secret.create('api-token', 'tok-123', t.opts);
    const sbx = await Sandbox.create({
      ...t.opts,
      network: { rules: { 'api.example.com': [{ transform: { headers: { Authorization: `Bearer ${Secret.fill('api-token')}` } } }] } },
    });
    const p = (await (await t.svc.api(`/v1/boxes/${sbx.sandboxId}/http-policy`)).json()) as { id: string; document: Record<string, unknown> };
    expect(JSON.stringify(p.document)).toContain('Bearer ${secrets.api_token}');
    expect(JSON.stringify(p.document)).not.toContain('tok-123');
    // Box's secret page names the policy that uses it
    const using = (await (await t.svc.api('/v1/secrets/api_token/policies')).json()) as { data: Array<{ id: string }> };
    expect(using.data.map((x) => x.id)).toContain(p.id);
    await sbx.kill();
    await Secret.destroy('api-token', t.opts);
  });
});

describe('E2B volumes are Box volumes', () => {
  it('creates, lists, connects and destroys through the SDK; Box lists them', async () => {
    const vol = await Volume.create('e2b-data', t.opts);
    expect(vol.volumeId).toMatch(/^vol/);
    expect(vol.name).toBe('e2b-data');
    expect(vol.token).toBeTruthy();
    const boxVols = (await (await t.svc.api('/v1/box-volumes')).json()) as { data: Array<{ volume_id: string; name: string }> };
    expect(boxVols.data).toContainEqual(expect.objectContaining({ volume_id: vol.volumeId, name: 'e2b-data' }));
    expect(await Volume.list(t.opts)).toContainEqual({ volumeId: vol.volumeId, name: 'e2b-data' });
    const info = await Volume.getInfo(vol.volumeId, t.opts);
    expect(info).toMatchObject({ volumeId: vol.volumeId, name: 'e2b-data', token: vol.token });
    expect((await Volume.connect(vol.volumeId, t.opts)).token).toBe(vol.token);
    await expect(Volume.getInfo('vol_missing', t.opts)).rejects.toThrow(VolumeNotFoundError);
    expect(await Volume.destroy(vol.volumeId, t.opts)).toBe(true);
    expect(await Volume.destroy(vol.volumeId, t.opts)).toBe(false);
    expect((await Volume.list(t.opts)).map((v) => v.volumeId)).not.toContain(vol.volumeId);
  });

  it("mounts by name at create, shows the mount in the sandbox's info, and refuses deleting a mounted volume", async () => {
    const vol = await Volume.create('mounted', t.opts);
    const sbx = await Sandbox.create({ ...t.opts, volumeMounts: { '/mnt/data': vol } });
    const box = (await (await t.svc.api(`/v1/boxes/${sbx.sandboxId}`)).json()) as { volume_mounts: unknown[] };
    expect(box.volume_mounts).toEqual([{ volume_id: vol.volumeId, mount_path: '/mnt/data' }]);
    const info = (await (await t.e2b(`/sandboxes/${sbx.sandboxId}`)).json()) as { volumeMounts: unknown[] };
    expect(info.volumeMounts).toEqual([{ name: 'mounted', path: '/mnt/data' }]);
    const del = await t.e2b(`/volumes/${vol.volumeId}`, { method: 'DELETE' });
    expect(del.status).toBe(409);
    expect(((await del.json()) as { message: string }).message).toMatch(/mounted by/);
    await sbx.kill();
    expect(await Volume.destroy(vol.volumeId, t.opts)).toBe(true);
  });

  it("refuses bad volume input with E2B's error naming the field", async () => {
    const create = async (body: unknown) => {
      const res = await t.e2b('/v2/sandboxes', { method: 'POST', json: { templateID: 'base', ...(body as object) } });
      return { status: res.status, message: ((await res.json()) as { message: string }).message };
    };
    expect(await create({ volumeMounts: [{ name: 'nope', path: '/data' }] })).toEqual({
      status: 404,
      message: expect.stringMatching(/volumeMounts\[0\]\.name: no volume named nope/) as unknown as string,
    });
    const rel = await create({ volumeMounts: [{ name: 'x', path: 'data' }] });
    expect(rel.status).toBe(400);
    expect(rel.message).toMatch(/volumeMounts\.0\.path|volumeMounts\[0\]\.path/);
    const badName = await t.e2b('/volumes', { method: 'POST', json: { name: 'a/b' } });
    expect(badName.status).toBe(400);
    expect(((await badName.json()) as { message: string }).message).toMatch(/name/);
    expect((await Sandbox.list(t.opts).nextItems()).length).toBe(0);
  });
});

describe("E2B's volume content API on a Box volume's files", () => {
  it('lists, makes folders, writes, reads, stats, changes modes and deletes through the SDK; Box sees the same files', async () => {
    const made = await Volume.create('content', t.opts);
    const vol = await Volume.connect(made.volumeId, t.opts); // the SDK's volume instance: token from getInfo
    const at = { apiUrl: t.opts.apiUrl }; // E2B_VOLUME_API_URL, per call
    expect(await vol.list('/', at)).toEqual([]);
    const dir = await vol.makeDir('/docs/deep', { ...at, force: true, mode: 0o750 });
    expect(dir).toMatchObject({ name: 'deep', type: 'directory', path: '/docs/deep', mode: 0o750 });
    expect(dir.mtime).toBeInstanceOf(Date);
    const f = await vol.writeFile('/docs/a.txt', 'hello volume', { ...at, mode: 0o640 });
    expect(f).toMatchObject({ name: 'a.txt', type: 'file', path: '/docs/a.txt', size: 12, mode: 0o640 });
    expect(typeof f.uid).toBe('number');
    expect(await vol.readFile('/docs/a.txt', at)).toBe('hello volume');
    expect(Buffer.from(await vol.readFile('docs/a.txt', { ...at, format: 'bytes' })).toString()).toBe('hello volume');
    // without force an existing file is a conflict, with force it is replaced
    await expect(vol.writeFile('/docs/a.txt', 'again', at)).rejects.toThrow(/already exists.*force/);
    expect((await vol.writeFile('/docs/a.txt', 'replaced', { ...at, force: true })).size).toBe(8);
    // without force missing parents are a 404, with force they are made
    await expect(vol.writeFile('/no/such/dir/x.txt', 'x', at)).rejects.toThrow(VolumePathNotFoundError);
    await vol.writeFile('/no/such/dir/x.txt', 'x', { ...at, force: true });
    // depth
    expect((await vol.list('/docs', at)).map((e) => e.path)).toEqual(['/docs/a.txt', '/docs/deep']);
    expect((await vol.list('/', { ...at, depth: 4 })).map((e) => e.path)).toEqual([
      '/docs',
      '/docs/a.txt',
      '/docs/deep',
      '/no',
      '/no/such',
      '/no/such/dir',
      '/no/such/dir/x.txt',
    ]);
    expect(await vol.getInfo('/docs/a.txt', at)).toMatchObject({ type: 'file', size: 8 });
    expect(await vol.exists('/docs/a.txt', at)).toBe(true);
    expect(await vol.exists('/docs/missing', at)).toBe(false);
    expect(await vol.updateMetadata('/docs/a.txt', { mode: 0o600 }, at)).toMatchObject({ mode: 0o600 });
    // the same files through Box's own volume API
    const boxFile = await t.svc.api(`/v1/box-volumes/${vol.volumeId}/files?path=/docs/a.txt`);
    expect(await boxFile.text()).toBe('replaced');
    await vol.remove('/no', at); // a directory with its contents
    expect(await vol.exists('/no/such/dir/x.txt', at)).toBe(false);
    await expect(vol.remove('/no', at)).rejects.toThrow(VolumePathNotFoundError);
    await expect(vol.getInfo('/gone', at)).rejects.toThrow(VolumePathNotFoundError);
    expect(await Volume.destroy(vol.volumeId, t.opts)).toBe(true);
  });

  it("keeps every path inside the volume and answers E2B's {code, message} naming the field", async () => {
    const vol = await Volume.create('confined', t.opts);
    const at = { apiUrl: t.opts.apiUrl };
    const raw = (p: string, init: RequestInit = {}, token = vol.token) =>
      fetch(`${t.opts.apiUrl}/volumecontent/${vol.volumeId}${p}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
    const err = async (res: Response) => ({ status: res.status, body: (await res.json()) as { code: number; message: string } });
    // ".." never escapes: refused outright, naming path
    for (const p of ['../x', '/a/../../etc/passwd', '..']) {
      const e = await err(await raw(`/file?path=${encodeURIComponent(p)}`));
      expect(e.status).toBe(400);
      expect(e.body).toEqual({ code: 400, message: expect.stringMatching(/path/) as unknown as string });
    }
    await expect(vol.readFile('../../etc/passwd', at)).rejects.toThrow(/path/);
    // a symlink made inside the volume (as a box would) pointing outside: never followed out
    const hostDir = (await (await import('node:fs/promises')).readdir(path.join(t.svc.dataDir, 'volumes', vol.volumeId, 'data'))).length;
    expect(hostDir).toBe(0);
    fs.symlinkSync('/etc', path.join(t.svc.dataDir, 'volumes', vol.volumeId, 'data', 'out'));
    expect(await vol.getInfo('/out', at)).toMatchObject({ type: 'symlink', target: '/etc' });
    await expect(vol.readFile('/out/passwd', at)).rejects.toThrow(VolumePathNotFoundError);
    await expect(vol.list('/out', at)).rejects.toThrow(VolumePathNotFoundError);
    await expect(vol.writeFile('/out/evil', 'x', { ...at, force: true })).rejects.toThrow(VolumePathNotFoundError);
    await expect(vol.updateMetadata('/out', { mode: 0o777 }, at)).rejects.toThrow(VolumePathNotFoundError);
    expect(fs.existsSync('/etc/evil')).toBe(false);
    // bad input names its field
    expect(await err(await raw('/dir?path=/d&depth=11'))).toEqual({ status: 400, body: { code: 400, message: expect.stringMatching(/depth/) } });
    expect(await err(await raw('/dir?path=/d&mode=99999', { method: 'POST' }))).toEqual({
      status: 400,
      body: { code: 400, message: expect.stringMatching(/mode/) },
    });
    expect(await err(await raw('/path', {}))).toEqual({ status: 400, body: { code: 400, message: expect.stringMatching(/path/) } });
    const patch = await raw('/path?path=/', { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mode: 'rwx' }) });
    expect(await err(patch)).toEqual({ status: 400, body: { code: 400, message: expect.stringMatching(/mode/) } });
    expect(await err(await raw('/path?path=/', { method: 'DELETE' }))).toEqual({
      status: 400,
      body: { code: 400, message: expect.stringMatching(/path.*root/) },
    });
    // the volume's token, and only it
    expect((await raw('/dir?path=/', {}, 'e2bvt_wrong')).status).toBe(401);
    const other = await Volume.create('other', t.opts);
    expect((await raw('/dir?path=/', {}, other.token)).status).toBe(401);
    expect((await fetch(`${t.opts.apiUrl}/volumecontent/${vol.volumeId}/dir?path=/`, { headers: { 'X-API-Key': t.opts.apiKey } })).status).toBe(401);
    expect(await Volume.destroy(vol.volumeId, t.opts)).toBe(true);
    expect(await Volume.destroy(other.volumeId, t.opts)).toBe(true);
    // a deleted volume's files are gone with it
    expect((await raw('/dir?path=/')).status).toBe(401);
  });
});
