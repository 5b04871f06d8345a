import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';

let svc: TestService;
let orgId: string;
beforeAll(async () => {
  svc = await startTestService({});
  orgId = (await svc.ctx.repos.orgs.ensureDefault()).id;
  await svc.ctx.db.run('INSERT INTO apps (id, org_id, name, created_at) VALUES (?, ?, ?, ?)', ['app_p', orgId, 'p', new Date().toISOString()]);
});
afterAll(() => svc.close());

const BOX = 'box_11111111-2222-4333-8444-555555555555';
/** Boxes are created by the boxes area; these tests insert the row directly. */
async function insertBox(id: string, opts: { visibility?: string; createdBy?: string; status?: string } = {}) {
  const now = new Date().toISOString();
  await svc.ctx.db.run(
    `INSERT INTO boxes (id, org_id, app_id, name, image, status, visibility, created_by_key_id, vcpu_count, memory_mib, disk_gib, created_at, updated_at)
       VALUES (?, ?, 'app_p', ?, 'debian', ?, ?, ?, 1, 512, 4, ?, ?)`,
    [id, orgId, `b${id.slice(4, 12)}`, opts.status ?? 'running', opts.visibility ?? 'org', opts.createdBy ?? 'key_other', now, now],
  );
}

const doc = {
  'api.example.com': {
    rules: [{ match: { method: 'GET', path: { prefix: '/v1/' } }, request: { set: { headers: { Authorization: 'Bearer ${secrets.TOKEN}' } } } }],
  },
  '*': { rules: [] },
};
const create = (body: unknown) => svc.api('/v1/http-policies', { method: 'POST', json: body });

async function expect400(body: unknown, param: string) {
  const res = await create(body);
  expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
  const err = await errorOf(res);
  expect(err.type).toBe('invalid_request_error');
  expect(err.param).toBe(param);
}

describe('HTTP policy CRUD', () => {
  it('create, get, list', async () => {
    const res = await create({ name: 'egress', document: doc });
    expect(res.status).toBe(200);
    const p = await res.json();
    expect(p.id).toMatch(/^hp_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/);
    expect(p).toMatchObject({ org_id: orgId, name: 'egress', document: doc });
    expect(await (await svc.api(`/v1/http-policies/${p.id}`)).json()).toEqual(p);
    const list = await (await svc.api('/v1/http-policies')).json();
    expect(list.data.map((x: { id: string }) => x.id)).toContain(p.id);
    expect(list).toMatchObject({ limit: 50, offset: 0 });
  });

  it('PATCH: updated_at moves only when the name changes', async () => {
    const p = await (await create({ name: 'patchme', document: {} })).json();
    await new Promise((r) => setTimeout(r, 15));
    const docOnly = await (await svc.api(`/v1/http-policies/${p.id}`, { method: 'PATCH', json: { document: doc } })).json();
    expect(docOnly.document).toEqual(doc);
    expect(docOnly.updated_at).toBe(p.updated_at);
    const sameName = await (await svc.api(`/v1/http-policies/${p.id}`, { method: 'PATCH', json: { name: 'patchme' } })).json();
    expect(sameName.updated_at).toBe(p.updated_at);
    const renamed = await (await svc.api(`/v1/http-policies/${p.id}`, { method: 'PATCH', json: { name: 'renamed' } })).json();
    expect(renamed.name).toBe('renamed');
    expect(renamed.updated_at > p.updated_at).toBe(true);
    expect(renamed.created_at).toBe(p.created_at);
    const bad = await svc.api(`/v1/http-policies/${p.id}`, { method: 'PATCH', json: { document: { 'bad host': { rules: [] } } } });
    expect((await errorOf(bad)).param).toBe('document["bad host"]');
  });

  it('malformed id → 400 id; unknown → 404; delete → 200 then 404', async () => {
    expect((await errorOf(await svc.api('/v1/http-policies/hp_123'))).param).toBe('id');
    const unknown = await svc.api('/v1/http-policies/hp_00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).type).toBe('not_found_error');
    const p = await (await create({ name: 'del', document: {} })).json();
    expect((await svc.api(`/v1/http-policies/${p.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await svc.api(`/v1/http-policies/${p.id}`)).status).toBe(404);
  });
});

describe('document validation', () => {
  it('name and document are required', async () => {
    await expect400({ document: {} }, 'name');
    await expect400({ name: 'x' }, 'document');
    await expect400({ name: '', document: {} }, 'name');
    await expect400({ name: 'x', document: [] }, 'document');
  });

  it('host keys: hostname labels 1..63, at most 253 characters, *.domain, *', async () => {
    const label = (n: number) => 'a'.repeat(n);
    const host253 = [label(63), label(63), label(63), label(61)].join('.');
    expect(host253).toHaveLength(253);
    expect(
      (
        await create({
          name: 'ok',
          document: { [host253]: { rules: [] }, '*.example.com': { rules: [] }, '*': { rules: [] }, 'xn--bcher-kva.de': { rules: [] } },
        })
      ).status,
    ).toBe(200);
    const host254 = [label(63), label(63), label(63), label(62)].join('.');
    await expect400({ name: 'x', document: { [host254]: { rules: [] } } }, `document["${host254}"]`);
    for (const bad of [
      `${label(64)}.com`,
      'a..b',
      '-a.com',
      'a-.com',
      'a.com.',
      'a b.com',
      '*.',
      '**',
      'a.*.com',
      '*.*.com',
      'exa_mple.com',
      'héllo.com',
      '',
    ]) {
      await expect400({ name: 'x', document: { [bad]: { rules: [] } } }, `document[${JSON.stringify(bad)}]`);
    }
    await expect400({ name: 'x', document: { 'A.com': { rules: [] }, 'a.com': { rules: [] } } }, 'document["a.com"]');
  });

  it('rule fields are validated and named', async () => {
    const h = (rules: unknown) => ({ name: 'x', document: { 'h.io': { rules } } });
    await expect400({ name: 'x', document: { 'h.io': {} } }, 'document["h.io"].rules');
    await expect400({ name: 'x', document: { 'h.io': { rules: [], extra: 1 } } }, 'document["h.io"].extra');
    await expect400(h([{}, {}, { respond: { status: 99 } }]), 'document["h.io"].rules[2].respond.status');
    await expect400(h([{ respond: { status: 600 } }]), 'document["h.io"].rules[0].respond.status');
    await expect400(h([{ respond: { status: 200.5 } }]), 'document["h.io"].rules[0].respond.status');
    await expect400(h([{ respond: { status: 200, body: 5 } }]), 'document["h.io"].rules[0].respond.body');
    await expect400(h([{ match: { method: 'GE T' } }]), 'document["h.io"].rules[0].match.method');
    await expect400(h([{ match: { method: [] } }]), 'document["h.io"].rules[0].match.method');
    await expect400(h([{ match: { path: { equals: 'no-slash' } } }]), 'document["h.io"].rules[0].match.path.equals');
    await expect400(h([{ match: { path: { equals: '/a', prefix: '/b' } } }]), 'document["h.io"].rules[0].match.path');
    await expect400(h([{ match: { path: {} } }]), 'document["h.io"].rules[0].match.path');
    await expect400(h([{ match: { host: 'x' } }]), 'document["h.io"].rules[0].match.host');
    await expect400(h([{ request: { set: { headers: { 'Bad Header': 'v' } } } }]), 'document["h.io"].rules[0].request.set.headers.Bad Header');
    await expect400(h([{ request: { set: { headers: { X: 'a\r\nInjected: 1' } } } }]), 'document["h.io"].rules[0].request.set.headers.X');
    await expect400(h([{ request: { set: { headers: { X: '${secrets.1BAD}' } } } }]), 'document["h.io"].rules[0].request.set.headers.X');
    await expect400(h([{ request: { set: { headers: { X: '${secrets.OPEN' } } } }]), 'document["h.io"].rules[0].request.set.headers.X');
    await expect400(h([{ request: { set: { headers: { X: 'v' } } }, respond: { status: 403 } }]), 'document["h.io"].rules[0]');
    expect(
      (
        await create(
          h([
            { match: { method: ['GET', 'post'], path: { prefix: '/' } }, request: { set: { headers: { 'X-Key': 'k ${secrets.A_B} ${secrets.C}' } } } },
            { respond: { status: 404, body: 'nope' } },
          ]),
        )
      ).status,
    ).toBe(200);
  });

  it('at most 100 rules in total (across hosts)', async () => {
    const rules = (n: number) => Array.from({ length: n }, () => ({ match: { method: 'GET' } }));
    expect((await create({ name: 'x', document: { 'a.io': { rules: rules(50) }, 'b.io': { rules: rules(50) } } })).status).toBe(200);
    await expect400({ name: 'x', document: { 'a.io': { rules: rules(50) }, 'b.io': { rules: rules(51) } } }, 'document');
    await expect400({ name: 'x', document: { 'a.io': { rules: rules(101) } } }, 'document');
  });

  it('at most 64 KiB encoded', async () => {
    const body = (n: number) => ({ name: 'x', document: { 'a.io': { rules: [{ respond: { status: 200, body: 'é'.repeat(n) } }] } } });
    const overhead = Buffer.byteLength(JSON.stringify(body(0).document));
    await expect400(
      { name: 'x', document: { 'a.io': { rules: Array.from({ length: 5 }, () => ({ respond: { status: 200, body: 'x'.repeat(13400) } })) } } },
      'document',
    ); // ~65.5 KiB
    const fits = Math.floor((65536 - overhead) / 2); // é is 2 bytes: bytes, not characters, are counted
    expect(fits).toBeGreaterThan(16384); // one body field cannot reach the limit alone
    const multi = (perRule: number, n: number) => ({
      name: 'x',
      document: { 'a.io': { rules: Array.from({ length: n }, () => ({ respond: { status: 200, body: 'é'.repeat(perRule) } })) } },
    });
    const size = (b: { document: unknown }) => Buffer.byteLength(JSON.stringify(b.document));
    let n = 4;
    while (size(multi(8000, n + 1)) <= 65536) n++;
    expect((await create(multi(8000, n))).status).toBe(200); // just under 64 KiB in bytes
    await expect400(multi(8000, n + 1), 'document');
  });
});

describe('box attachment', () => {
  it('400 for a malformed box id, 404 for an unknown box, 404 when nothing is attached', async () => {
    const bad = await svc.api('/v1/boxes/abc/http-policy');
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({ type: 'invalid_request_error', param: 'box_id' });
    const unknown = await svc.api('/v1/boxes/box_00000000-0000-4000-8000-000000000000/http-policy');
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).type).toBe('not_found_error');
    await insertBox(BOX);
    const none = await svc.api(`/v1/boxes/${BOX}/http-policy`);
    expect(none.status).toBe(404);
    expect((await errorOf(none)).message).toMatch(/no HTTP policy attached/);
  });

  it('attach, read, delete while attached → 409, clear, then delete works', async () => {
    const p = await (await create({ name: 'attached', document: doc })).json();
    const put = await svc.api(`/v1/boxes/${BOX}/http-policy`, { method: 'PUT', json: { policy_id: p.id } });
    expect(put.status).toBe(200);
    expect((await svc.api(`/v1/boxes/${BOX}/http-policy`).then((r) => r.json())).id).toBe(p.id);
    const row = (await svc.ctx.db.get('SELECT http_policy_id FROM boxes WHERE id = ?', [BOX])) as { http_policy_id: string };
    expect(row.http_policy_id).toBe(p.id);
    const del = await svc.api(`/v1/http-policies/${p.id}`, { method: 'DELETE' });
    expect(del.status).toBe(409);
    expect((await errorOf(del)).type).toBe('conflict_error');
    expect((await svc.api(`/v1/boxes/${BOX}/http-policy`, { method: 'DELETE' })).status).toBe(200);
    expect((await svc.api(`/v1/boxes/${BOX}/http-policy`)).status).toBe(404);
    expect((await svc.api(`/v1/http-policies/${p.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('PUT validates policy_id; a terminated box that kept the policy does not block deletion', async () => {
    expect((await errorOf(await svc.api(`/v1/boxes/${BOX}/http-policy`, { method: 'PUT', json: { policy_id: 'nope' } }))).param).toBe('policy_id');
    const missing = await svc.api(`/v1/boxes/${BOX}/http-policy`, { method: 'PUT', json: { policy_id: 'hp_00000000-0000-4000-8000-000000000000' } });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).param).toBe('policy_id');
    const p = await (await create({ name: 'old', document: {} })).json();
    const dead = 'box_22222222-2222-4333-8444-555555555555';
    await insertBox(dead);
    await svc.api(`/v1/boxes/${dead}/http-policy`, { method: 'PUT', json: { policy_id: p.id } });
    await svc.ctx.db.run("UPDATE boxes SET status = 'terminated' WHERE id = ?", [dead]);
    expect((await svc.api(`/v1/boxes/${dead}/http-policy`)).status).toBe(404);
    expect((await svc.api(`/v1/http-policies/${p.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('a private box of another key needs an override reason, which is audited', async () => {
    const priv = 'box_33333333-2222-4333-8444-555555555555';
    await insertBox(priv, { visibility: 'private', createdBy: 'key_someone_else' });
    const p = await (await create({ name: 'priv', document: {} })).json();
    const refused = await svc.api(`/v1/boxes/${priv}/http-policy`, { method: 'PUT', json: { policy_id: p.id } });
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).type).toBe('permission_error');
    const ok = await svc.api(`/v1/boxes/${priv}/http-policy`, {
      method: 'PUT',
      json: { policy_id: p.id },
      headers: { 'X-Box-Override-Reason': 'incident 42' },
    });
    expect(ok.status).toBe(200);
    const audit = (await svc.ctx.repos.audit.page(orgId, 10, 0)).rows;
    expect(audit.some((a) => a.action === 'box.override.http_policy' && a.target === priv && a.reason === 'incident 42')).toBe(true);
    expect((await svc.api(`/v1/boxes/${priv}/http-policy`)).status).toBe(200); // reading needs no override
  });
});
