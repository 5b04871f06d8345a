import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinMismatchError, pinnedFetch, probeCertificate } from '../../../sdk/typescript/src/tls.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { hostAllowed, parseListen } from './listen-config.js';
import { madeCert } from './serving-tls.js';

let svc: TestService;
let f: typeof fetch;
beforeAll(async () => {
  svc = await startTestService({ tls: true, allowedHosts: ['box.example.test'] });
  f = pinnedFetch({ fingerprint: svc.ctx.config.tls!.fingerprint });
});
afterAll(() => svc.close());
const auth = (key = svc.key) => ({ authorization: `Bearer ${key}` });

describe('serving HTTPS', () => {
  it('serves https with a certificate from its own CA; the pinned fingerprint is the one presented', async () => {
    expect(svc.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const peer = await probeCertificate(svc.url);
    expect(peer.fingerprint).toBe(svc.ctx.config.tls!.fingerprint);
    expect(peer.trusted).toBe(false);
    expect(peer.issuer).toMatch(/Box Desktop serving CA/);
    expect(peer.chainTop).toContain('BEGIN CERTIFICATE');
    const me = await f(`${svc.url}/v1/whoami`, { headers: auth() });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { key_scope: string }).key_scope).toBe('organization');
    // Node's own fetch does not trust it: only a pinned client gets through
    await expect(fetch(`${svc.url}/v1/health`)).rejects.toThrow();
  });

  it('refuses a server whose certificate is not the pinned one, naming both fingerprints, before sending anything', async () => {
    const wrong = 'AA:'.repeat(31) + 'AA';
    const bad = pinnedFetch({ fingerprint: wrong }, 'run `npx box context rm x`');
    const e = await bad(`${svc.url}/v1/whoami`, { headers: auth() }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PinMismatchError);
    expect((e as Error).message).toContain(wrong);
    expect((e as Error).message).toContain(svc.ctx.config.tls!.fingerprint);
    expect((e as Error).message).toContain('npx box context rm x');
  });

  it('answers allowed Host names only (403 host_not_allowed otherwise)', async () => {
    const ok = await f(`${svc.url}/v1/health`, { headers: { host: 'box.example.test' } });
    expect(ok.status).toBe(200);
    const evil = await f(`${svc.url}/v1/whoami`, { headers: { host: 'evil.example', ...auth() } });
    expect(evil.status).toBe(403);
    const err = await errorOf(evil);
    expect(err.code).toBe('host_not_allowed');
    expect(err.message).toContain('box.example.test');
    // a same-origin browser request carries https:// in its Origin
    const same = await f(`${svc.url}/v1/whoami`, { headers: { origin: svc.url, ...auth() } });
    expect(same.status).toBe(200);
    const cross = await f(`${svc.url}/v1/whoami`, { headers: { origin: svc.url.replace('https', 'http'), ...auth() } });
    expect(cross.status).toBe(403);
  });

  it('health and readiness answer without a key', async () => {
    const h = await f(`${svc.url}/v1/health`);
    expect(await h.json()).toMatchObject({ status: 'ok' });
    const r = await f(`${svc.url}/v1/ready`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { ready: boolean; checks: Record<string, { ok: boolean; detail: string }> };
    expect(body.ready).toBe(true);
    expect(body.checks.store!.ok).toBe(true);
    expect(body.checks.migrations!.detail).toMatch(/^\d+ applied$/);
  });
});

describe('invites', () => {
  it('an admin makes a one-time link; accepting it yields a user key once; members cannot invite', async () => {
    const inv = await f(`${svc.url}/v1/invites`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'alice' }),
    });
    expect(inv.status).toBe(200);
    const { url, scope } = (await inv.json()) as { url: string; scope: string };
    expect(scope).toBe('user');
    expect(url.startsWith(`${svc.url}/ui/invite?token=`)).toBe(true);
    const token = new URL(url).searchParams.get('token')!;
    // the link itself is a page that does not consume the invite (link previews)
    const page = await f(url);
    expect(await page.text()).toContain('Create my key');
    const accept = () =>
      f(`${svc.url}/v1/invites/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const first = await accept();
    expect(first.status).toBe(200);
    const got = (await first.json()) as { key: { secret: string; scope: string; name: string }; tls_fingerprint: string };
    expect(got.key).toMatchObject({ scope: 'user', name: 'alice' });
    expect(got.tls_fingerprint).toBe(svc.ctx.config.tls!.fingerprint);
    const me = await f(`${svc.url}/v1/whoami`, { headers: auth(got.key.secret) });
    expect(((await me.json()) as { key_scope: string }).key_scope).toBe('user');
    const again = await accept();
    expect(again.status).toBe(404);
    expect((await errorOf(again)).param).toBe('token');
    const asMember = await f(`${svc.url}/v1/invites`, {
      method: 'POST',
      headers: { ...auth(got.key.secret), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bob' }),
    });
    expect(asMember.status).toBe(403);
    const noName = await f(`${svc.url}/v1/invites`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({}) });
    expect(noName.status).toBe(400);
    expect((await errorOf(noName)).param).toBe('name');
  });
});

describe('listen configuration', () => {
  it('parses addresses and checks Host names', () => {
    expect(parseListen('10.0.0.5')).toEqual({ host: '10.0.0.5', port: undefined });
    expect(parseListen('10.0.0.5:8443')).toEqual({ host: '10.0.0.5', port: 8443 });
    expect(parseListen('[fd00::2]:8443')).toEqual({ host: 'fd00::2', port: 8443 });
    expect(() => parseListen('10.0.0.5:99999')).toThrow(/--listen/);
    expect(() => parseListen('host:abc')).toThrow(/--listen/);
    expect(parseListen('fd00::2')).toEqual({ host: 'fd00::2' });
    expect(hostAllowed('localhost:8787', [])).toBe(true);
    expect(hostAllowed('10.0.0.5:8443', [])).toBe(false);
    expect(hostAllowed('10.0.0.5:8443', ['10.0.0.5'])).toBe(true);
    expect(hostAllowed('a.corp.example', ['*.corp.example'])).toBe(true);
    expect(hostAllowed('corp.example', ['*.corp.example'])).toBe(false);
    expect(hostAllowed('evil.corp.example.com', ['*.corp.example'])).toBe(false);
  });

  it('keeps its made certificate across starts while the names are the same (the pin stays valid)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-tls-'));
    const a = await madeCert(dir, ['localhost', '10.9.9.9']);
    const b = await madeCert(dir, ['10.9.9.9', 'localhost']);
    expect(b.fingerprint).toBe(a.fingerprint);
    expect((fs.statSync(a.files.key).mode & 0o777).toString(8)).toBe('600');
    const c = await madeCert(dir, ['localhost', '10.9.9.10']);
    expect(c.fingerprint).not.toBe(a.fingerprint);
    // the same serving CA signs both
    expect(c.cert.split('END CERTIFICATE')[1]).toBe(a.cert.split('END CERTIFICATE')[1]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
