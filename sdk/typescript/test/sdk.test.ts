import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../../src-server/test-support/harness.js';
import {
  AuthenticationError,
  BadRequestError,
  BoxApiError,
  BoxClient,
  BoxConnectionError,
  ConflictError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  type OutputEvent,
} from '../src/index.js';

// The TypeScript SDK against the real service (real HTTP, SQLite, every area) with fake VMs:
// the SDK's surface and wire handling. sdk-examples.vm.test.ts runs the README's examples on real VMs.
let svc: TestService;
let client: BoxClient;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  client = new BoxClient({ url: svc.url, apiKey: svc.key, env: {} });
});
afterAll(async () => {
  await svc?.close();
});

describe('boxes, exec and files', () => {
  it('creates, gets by id and by name, lists; exec answers stdout, stderr and the exit code', async () => {
    const box = await client.boxes.create({ name: 'ts-one' });
    expect(box.status).toBe('running');
    expect((await client.boxes.get(box.id)).name).toBe('ts-one');
    expect((await client.boxes.get('ts-one')).id).toBe(box.id);
    expect((await client.boxes.list({ search: 'ts-one' })).data.map((b) => b.id)).toEqual([box.id]);
    const r = await box.exec('echo hello; echo oops >&2; exit 3');
    expect(r).toMatchObject({ stdout: 'hello\n', stderr: 'oops\n', exitCode: 3, status: 'failed' });
    expect(r.execId).toMatch(/^exec_/);
    const argv = await box.exec(['printf', '%s|', 'a b', 'c']);
    expect(argv.stdout).toBe('a b|c|');
    const withIn = await box.exec('cat', { stdin: 'from stdin' });
    expect(withIn.stdout).toBe('from stdin');
    expect((await box.exec('echo $FOO', { env: { FOO: 'bar' } })).stdout).toBe('bar\n');
  });

  it('execStream yields output in the order the command wrote it, as it happens', async () => {
    const box = await client.boxes.create({ name: 'ts-stream' });
    const t0 = Date.now();
    const events: (OutputEvent & { at: number })[] = [];
    const stream = box.execStream('for i in 1 2 3; do echo $i; echo e$i >&2; sleep 0.3; done');
    for await (const ev of stream) events.push({ ...ev, at: Date.now() - t0 });
    const end = Date.now() - t0;
    expect(events.map((e) => `${e.stream}:${e.data}`).join('')).toBe('stdout:1\nstderr:e1\nstdout:2\nstderr:e2\nstdout:3\nstderr:e3\n');
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
    expect(events[0]!.at).toBeLessThan(end - 500); // streamed, not buffered to the end
    expect(await stream.wait()).toMatchObject({ exitCode: 0, status: 'succeeded' });
    expect(stream.execId).toMatch(/^exec_/);
  });

  it('files: text, bytes and streams both ways; a directory listing; a missing file is a NotFoundError', async () => {
    const box = await client.boxes.create({ name: 'ts-files' });
    await box.files.write('/root/a.txt', 'hi');
    expect(await box.files.readText('/root/a.txt')).toBe('hi');
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
    expect(await box.files.write('/root/b.bin', bytes, { mode: 0o600 })).toEqual({ size_bytes: 300_000 });
    expect(Buffer.from(await box.files.read('/root/b.bin')).equals(Buffer.from(bytes))).toBe(true);
    async function* pieces() {
      for (let i = 0; i < 5; i++) yield new TextEncoder().encode(`piece ${i}\n`);
    }
    await box.files.write('/root/c.txt', pieces());
    const chunks: Uint8Array[] = [];
    for await (const c of (await box.files.readStream('/root/c.txt')) as unknown as AsyncIterable<Uint8Array>) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe('piece 0\npiece 1\npiece 2\npiece 3\npiece 4\n');
    const names = (await box.files.list('/root')).map((e) => e.name).sort();
    expect(names).toEqual(expect.arrayContaining(['a.txt', 'b.bin', 'c.txt']));
    const e = await box.files.read('/root/missing.txt').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotFoundError);
  });
});

describe('lifecycle, checkpoints, fork, cron, volumes, policies', () => {
  it('pause, resume, checkpoint, restore, fork (the child has the parent files), terminate', async () => {
    const box = await client.boxes.create({ name: 'ts-life' });
    await box.files.write('/root/state.txt', 'parent');
    expect((await box.pause()).status).toBe('paused');
    expect((await box.resume()).status).toBe('running');
    const cp = await box.checkpoint({ name: 'cp1' });
    expect(cp.box_id).toBe(box.id);
    expect((await box.checkpoints()).map((c) => c.checkpoint_id)).toContain(cp.checkpoint_id);
    const restored = await client.checkpoints.restore(cp.checkpoint_id, { name: 'ts-restored' });
    expect(await restored.files.readText('/root/state.txt')).toBe('parent');
    const child = await box.fork({ name: 'ts-child' });
    expect(child.id).not.toBe(box.id);
    expect(await child.files.readText('/root/state.txt')).toBe('parent');
    expect((await client.lineage()).some((l) => l.box_id === child.id && l.parent_box_id === box.id)).toBe(true);
    for (const b of [child, restored, box]) expect((await b.terminate()).status).toMatch(/^terminat/);
  });

  it('restoreTo goes back to a checkpoint in place; files mkdir, move, remove; your own inbox (issue 29)', async () => {
    const box = await client.boxes.create({ name: 'ts-ops' });
    await box.files.write('/root/keep.txt', 'kept');
    const cp = await box.checkpoint({ name: 'base' });
    await box.files.write('/root/later.txt', 'later');
    await box.checkpoint({ name: 'later' });
    expect(await box.restoreTo(cp.checkpoint_id)).toMatchObject({ id: box.id, status: 'running' });
    expect(box.info.on_checkpoint_id).toBe(cp.checkpoint_id); // the older one, not "later"
    expect((await box.refresh()).info.on_checkpoint_id).toBe(cp.checkpoint_id);
    expect(await box.files.readText('/root/keep.txt')).toBe('kept');
    await expect(box.files.readText('/root/later.txt')).rejects.toBeInstanceOf(NotFoundError);
    expect(await box.files.mkdir('/root/d')).toMatchObject({ name: 'd', type: 'directory' });
    await expect(box.files.mkdir('/root/d')).rejects.toBeInstanceOf(ConflictError);
    expect(await box.files.move('/root/keep.txt', '/root/d/k.txt')).toMatchObject({ name: 'k.txt', type: 'file' });
    await expect(box.files.remove('/root/d')).rejects.toMatchObject({ param: 'recursive' });
    expect(await box.files.remove('/root/d', { recursive: true })).toEqual({ path: '/root/d', deleted: true });
    const mine = await client.inboxes.mine();
    expect((await client.inboxes.mine()).inbox_id).toBe(mine.inbox_id);
    await fetch(mine.url, { method: 'POST', body: 'hello' });
    expect((await client.inboxes.deliveries({ inboxId: mine.inbox_id })).map((d) => d.body)).toEqual(['hello']);
    expect((await client.inboxes.list()).map((i) => i.inbox_id)).toContain(mine.inbox_id);
    await box.terminate();
  });

  it('cron jobs, volumes and their files, HTTP policies attached to a box', async () => {
    const box = await client.boxes.create({ name: 'ts-more' });
    const job = await box.cron.create({ schedule: '*/5 * * * *', command: 'echo tick' });
    expect((await box.cron.list()).map((j) => j.id)).toEqual([job.id]);
    const run = await box.cron.run(job.id);
    expect(run.cron_id).toBe(job.id);
    expect((await client.cronJobs()).map((j) => j.id)).toContain(job.id);
    await box.cron.delete(job.id);
    expect(await box.cron.list()).toEqual([]);

    const vol = await client.volumes.create({ name: 'ts-vol' });
    await vol.write('dir/x.txt', 'on the volume');
    expect(await vol.readText('dir/x.txt')).toBe('on the volume');
    expect((await vol.list('dir')).map((e) => e.name)).toEqual(['x.txt']);
    expect((await client.volumes.list()).data.map((v) => v.id)).toContain(vol.id);
    await vol.remove('dir', { recursive: true });
    expect((await vol.delete()).status).toBe('deleted');

    const pol = await client.policies.create({ name: 'ts-pol', document: { 'example.com': { rules: [{}] } } });
    expect((await box.setPolicy(pol.id)).id).toBe(pol.id);
    expect((await box.policy()).id).toBe(pol.id);
    expect(await box.detachPolicy()).toEqual({ box_id: box.id, http_policy_id: null });
    expect((await client.policies.update(pol.id, { name: 'ts-pol-2' })).name).toBe('ts-pol-2');
    await client.policies.delete(pol.id);
    expect((await client.policies.presets()).length).toBeGreaterThan(0);
  });
});

describe('embeddings', () => {
  it('embed answers unit vectors per text; create answers base64 when asked; an unknown model is a NotFoundError', async () => {
    const [a, b] = await client.embeddings.embed('box/echo', ['one', 'two'], { dimensions: 16 });
    expect(a).toHaveLength(16);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 6);
    expect(b).not.toEqual(a);
    expect(await client.embeddings.embed('box/echo', 'one', { dimensions: 16 })).toEqual([a]);
    const raw = await client.embeddings.create({ model: 'box/echo', input: 'one', encoding_format: 'base64' });
    expect(Buffer.from(raw.data[0]!.embedding as string, 'base64').length).toBe(64 * 4);
    expect(raw.usage.prompt_tokens).toBe(1);
    await expect(client.embeddings.embed('box/nothing', 'x')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('typed errors and idempotency', () => {
  it('errors carry the envelope: 404, 400 naming the field, 401, 409', async () => {
    const nf = await client.boxes.get('box_00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf).toMatchObject({ status: 404, type: 'not_found_error' });
    expect((nf as NotFoundError).envelope.error.message).toMatch(/box/i);
    const bad = await client.boxes.create({ name: 'Not A Name' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'name' });
    const anon = new BoxClient({ url: svc.url, apiKey: 'bxk_wrong', env: {} });
    const auth = await anon.whoami().catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(auth).toBeInstanceOf(BoxApiError);
    expect((auth as BoxApiError).code).toBe('invalid_api_key');
    const down = await new BoxClient({ url: 'http://127.0.0.1:9', apiKey: 'k', env: {} }).whoami().catch((e: unknown) => e);
    expect(down).toBeInstanceOf(BoxConnectionError);
  });

  it('create with one idempotency key answers one box; the key with another body is a ConflictError', async () => {
    const key = `ts-idem-${Date.now()}`;
    const a = await client.boxes.create({ name: 'ts-idem', idempotencyKey: key });
    const b = await client.boxes.create({ name: 'ts-idem', idempotencyKey: key });
    expect(b.id).toBe(a.id);
    const c = await client.boxes.create({ name: 'ts-idem-other', idempotencyKey: key }).catch((e: unknown) => e);
    expect(c).toBeInstanceOf(ConflictError);
    expect((c as ConflictError).code).toBe('idempotency_key_reused');
  });
});

describe('retries on 429 and 503 (a scripted loopback server)', () => {
  type Seen = { method: string; url: string; key: string | undefined; body: string };
  async function scripted(answers: { status: number; headers?: Record<string, string>; body?: unknown }[]) {
    const seen: Seen[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string | undefined, body });
        const a = answers[Math.min(seen.length - 1, answers.length - 1)]!;
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
        res.end(JSON.stringify(a.body ?? {}));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { seen, client: new BoxClient({ url, apiKey: 'k', env: {} }), close: () => server.close() };
  }
  const envelope = (type: string, message: string) => ({ error: { message, type, param: null, code: null } });
  const app = { id: 'app_00000000-0000-4000-8000-000000000001', name: 'default', created_at: '2026-01-01T00:00:00Z' };
  const boxInfo = { box_id: 'box_00000000-0000-4000-8000-000000000002', name: 'r', status: 'running' };

  it('waits Retry-After, then sends the same body under the same Idempotency-Key', async () => {
    const s = await scripted([
      { status: 200, body: app },
      { status: 503, headers: { 'retry-after': '1' }, body: envelope('server_error', 'busy') },
      { status: 429, headers: { 'retry-after': '0' }, body: envelope('rate_limit_error', 'slow down') },
      { status: 200, body: boxInfo },
    ]);
    const t0 = Date.now();
    const box = await s.client.boxes.create({ name: 'r' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(box.id).toBe(boxInfo.box_id);
    const creates = s.seen.filter((x) => x.url === '/v1/boxes');
    expect(creates).toHaveLength(3);
    expect(new Set(creates.map((c) => c.key)).size).toBe(1);
    expect(creates[0]!.key).toBeTruthy();
    expect(new Set(creates.map((c) => c.body)).size).toBe(1);
    s.close();
  });

  it('a 429 without Retry-After ran and is not repeated; retries end after maxRetries with the typed error', async () => {
    const s = await scripted([{ status: 429, body: envelope('rate_limit_error', 'at the box limit') }]);
    const e = await s.client.whoami().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(s.seen).toHaveLength(1);
    s.close();
    const t = await scripted([{ status: 503, headers: { 'retry-after': '0' }, body: envelope('server_error', 'down') }]);
    const c = new BoxClient({ url: t.client.url, apiKey: 'k', env: {}, maxRetries: 2 });
    const e2 = await c.whoami().catch((x: unknown) => x);
    expect(e2).toBeInstanceOf(ServiceUnavailableError);
    expect(e2).toMatchObject({ status: 503, retryAfter: 0, message: expect.stringContaining('down') });
    expect(t.seen).toHaveLength(3);
    t.close();
  });
});
