import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sshpk from 'sshpk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

let svc: TestService;
let env: { BOX_URL: string; BOX_API_KEY: string };
const box = (args: string[], o?: Parameters<typeof runCli>[2]) => runCli(env, args, o);
const ok = async (args: string[], o?: Parameters<typeof runCli>[2]) => {
  const r = await box(args, o);
  if (r.code !== 0) throw new Error(`box ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return r;
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-cli-areas-'));

beforeAll(async () => {
  svc = await startTestService({
    runtime: (d) => new FakeRuntime(d),
  });
  env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
  await ok(['boxes', 'create', 'area1']);
});
afterAll(async () => {
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('volumes', () => {
  it('create (idempotent by name), list, put, ls, stat, fetch, rm — by name', async () => {
    const a = JSON.parse((await ok(['volumes', 'create', 'shared', '--json'])).stdout);
    const b = JSON.parse((await ok(['volumes', 'create', 'shared', '--json'])).stdout);
    expect(b.volume_id).toBe(a.volume_id);
    expect((await ok(['volumes', 'list'])).stdout).toMatch(new RegExp(`${a.volume_id}\\s+shared\\s+\\S+\\s+ready`));
    const src = path.join(tmp, 'v.txt');
    fs.writeFileSync(src, 'volume bytes\n');
    await ok(['volumes', 'put', 'shared', src, '/docs/'], {});
    const ls = JSON.parse((await ok(['volumes', 'ls', 'shared', 'docs', '--json'])).stdout);
    expect(ls.entries).toEqual([expect.objectContaining({ name: 'v.txt', type: 'file', size: 13 })]);
    expect((await ok(['volumes', 'stat', 'shared', '/docs/v.txt'])).stdout).toMatch(/mode:\s+0644/);
    expect((await ok(['volumes', 'fetch', 'shared', 'docs/v.txt', '-'])).stdout).toBe('volume bytes\n');
    const missing = await box(['volumes', 'stat', 'shared', 'nope']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/\(param: path, code: not_found\)|\(code: not_found\)/);
    expect((await ok(['volumes', 'rm', 'shared'])).stdout).toMatch(/ deleted\n$/);
    expect((await box(['volumes', 'get', 'shared'])).code).toBe(4);
  });
});

describe('policies', () => {
  it('create from a file, list, attach by names, show, detach, rm; invalid documents name the field', async () => {
    const doc = path.join(tmp, 'policy.json');
    fs.writeFileSync(doc, JSON.stringify({ 'api.example.com': { rules: [{ match: { method: 'GET' } }] }, '*': { rules: [{ respond: { status: 403 } }] } }));
    const p = JSON.parse((await ok(['policies', 'create', 'only-example', '--file', doc, '--json'])).stdout);
    expect(p.id).toMatch(/^hp_/);
    expect((await ok(['policies', 'list'])).stdout).toMatch(/only-example\s+api\.example\.com \*/);
    await ok(['policies', 'attach', 'area1', 'only-example']);
    expect(JSON.parse((await ok(['policies', 'show', 'area1', '--json'])).stdout).id).toBe(p.id);
    expect(JSON.parse((await ok(['boxes', 'get', 'area1', '--json'])).stdout).http_policy_id).toBe(p.id);
    const attached = await box(['policies', 'rm', 'only-example']);
    expect(attached.code).toBe(5);
    await ok(['policies', 'detach', 'area1']);
    const none = await box(['policies', 'show', 'area1']);
    expect(none.code).toBe(4);
    await ok(['policies', 'rm', p.id]);
    fs.writeFileSync(doc, JSON.stringify({ 'a.example': { rules: [{ match: { method: 'G E T' } }] } }));
    const bad = await box(['policies', 'create', 'bad', '--file', doc]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: .*\(param: document\.a\.example\.rules\.0\.match\.method.*\)\n$|^error: .*\(param: document.*\)\n$/);
    const notJson = await box(['policies', 'create', 'bad', '--file', path.join(tmp, 'missing.json')]);
    expect(notJson).toMatchObject({ code: 2, stderr: expect.stringContaining('no such file') });
  });
});

describe('secrets', () => {
  it('set reads the value from stdin, never argv; the service stores exactly it; get shows metadata only', async () => {
    const value = `tok-${Math.random().toString(36).slice(2)}`;
    const r = await ok(['secrets', 'set', 'API_TOKEN'], { input: `${value}\n` });
    expect(r.stdout).toBe('API_TOKEN  set\n');
    const orgId = (await (await svc.api('/v1/whoami')).json()).org_id;
    expect(await svc.ctx.services.secrets!.resolve(orgId, 'API_TOKEN')).toBe(value);
    const meta = await ok(['secrets', 'get', 'API_TOKEN', '--json']);
    expect(meta.stdout).not.toContain(value);
    expect(JSON.parse(meta.stdout).name).toBe('API_TOKEN');
    expect((await ok(['secrets', 'list'])).stdout).toMatch(/API_TOKEN/);
    const extra = await box(['secrets', 'set', 'API_TOKEN', value]);
    expect(extra.code).toBe(2);
    const empty = await box(['secrets', 'set', 'EMPTY'], { input: '' });
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringContaining('empty secret value on stdin') });
    await ok(['secrets', 'rm', 'API_TOKEN']);
    expect((await box(['secrets', 'get', 'API_TOKEN'])).code).toBe(4);
  });
});

describe('cron and keys', () => {
  it('cron add/list/rm on a box by name', async () => {
    const job = JSON.parse(
      (await ok(['cron', 'add', 'area1', '0 3 * * *', '--tz', 'Europe/Paris', '--env', 'B=2', '--env', 'A=1', '--json', '--', 'echo', 'nightly', '--json']))
        .stdout,
    );
    expect(job).toMatchObject({ schedule: '0 3 * * *', timezone: 'Europe/Paris', command: 'echo nightly --json', env_names: ['A', 'B'] });
    const listed = JSON.parse((await ok(['cron', 'list', 'area1', '--json'])).stdout);
    expect(listed.map((j: { id: string }) => j.id)).toEqual([job.id]);
    const bad = await box(['cron', 'add', 'area1', 'every day', '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('(param: schedule)');
    await ok(['cron', 'rm', 'area1', job.id]);
    expect(JSON.parse((await ok(['cron', 'list', 'area1', '--json'])).stdout)).toEqual([]);
  });

  it('keys create prints the secret once on stdout; the new key works; rm revokes it', async () => {
    const r = await ok(['keys', 'create', 'ci', '--scope', 'organization']);
    const secret = r.stdout.trim();
    expect(secret).toMatch(/^bxk_/);
    const me = JSON.parse((await runCli({ BOX_URL: svc.url, BOX_API_KEY: secret }, ['whoami', '--json'])).stdout);
    expect((await ok(['keys', 'list'])).stdout).toContain(me.key_id);
    await ok(['keys', 'rm', me.key_id]);
    expect((await runCli({ BOX_URL: svc.url, BOX_API_KEY: secret }, ['whoami'])).code).toBe(3);
  });
});

describe('ssh certificates', () => {
  it('ssh cert signs ~/.ssh-style key with the org CA; the cert names root and verifies against ssh ca', async () => {
    const key = path.join(tmp, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    const r = await ok(['ssh', 'cert', '--key', `${key}.pub`, '--json']);
    expect(JSON.parse(r.stdout).file).toBe(`${key}-cert.pub`);
    const caLine = (await ok(['ssh', 'ca'])).stdout.trim();
    const cert = sshpk.parseCertificate(fs.readFileSync(`${key}-cert.pub`), 'openssh');
    expect(cert.subjects.map((s) => s.uid)).toEqual(['root']);
    expect(cert.isSignedByKey(sshpk.parseKey(caLine, 'ssh'))).toBe(true);
    expect(cert.subjectKey.fingerprint('sha256').toString()).toBe(
      sshpk
        .parseKey(fs.readFileSync(`${key}.pub`), 'ssh')
        .fingerprint('sha256')
        .toString(),
    );
    const listing = execFileSync('ssh-keygen', ['-L', '-f', `${key}-cert.pub`]).toString();
    expect(listing).toMatch(/Type: ssh-ed25519-cert-v01@openssh.com user certificate/);
    const missing = await box(['ssh', 'cert', '--key', path.join(tmp, 'nokey')]);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('ssh-keygen -t ed25519') });
  });

  it('ssh connect without a published port 22 explains what to do', async () => {
    const r = await box(['ssh', 'connect', 'area1', '--key', path.join(tmp, 'id_ed25519'), '--print']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: (this service cannot publish ports yet|port 22 of box_\S+ is not published: run "box ssh enable)/);
  });
});

describe('image list', () => {
  it('lists the cached images of BOX_IMAGE_CACHE with their parts', async () => {
    const cache = path.join(tmp, 'cache');
    const root = path.join(cache, 'images', 'debian');
    for (const p of ['kernel-k1', 'initrd-i1', 'rootfs-r1', 'rootfs-old']) fs.mkdirSync(path.join(root, 'parts', p), { recursive: true });
    fs.writeFileSync(path.join(root, 'parts', 'rootfs-r1', 'rootfs.raw'), Buffer.alloc(4096, 1));
    fs.mkdirSync(path.join(root, 'abc123'));
    const meta = {
      recipeHash: 'abc123',
      kernelVersion: '6.1.0-test',
      builtAt: '2026-01-01T00:00:00.000Z',
      agent: { placeholder: false },
      kernel: path.join(root, 'parts', 'kernel-k1', 'vmlinux'),
      initrd: path.join(root, 'parts', 'initrd-i1', 'initrd.img'),
      rootfs: path.join(root, 'parts', 'rootfs-r1', 'rootfs.raw'),
    };
    fs.writeFileSync(path.join(root, 'abc123', 'image.json'), JSON.stringify(meta));
    const r = await runCli({ ...env, BOX_IMAGE_CACHE: cache }, ['image', 'cache', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.images).toEqual([expect.objectContaining({ recipe: 'abc123', current: false, kernel_version: '6.1.0-test', parts_present: true })]);
    expect(out.images[0].bytes).toBeGreaterThanOrEqual(4096);
    expect(out.unreferenced_parts).toEqual([path.join(root, 'parts', 'rootfs-old')]);
  });
});
