import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sshpk from 'sshpk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({});
});
afterAll(() => svc.close());

const caKey = async () => (await (await svc.api('/v1/ssh/ca')).json()).public_key as string;
const sign = (json: unknown) => svc.api('/v1/ssh/certificate', { method: 'POST', json });

describe('SSH CA', () => {
  it('is created on first request, stable after, also under concurrent first requests, and not stored in clear', async () => {
    const all = await Promise.all(Array.from({ length: 5 }, caKey));
    expect(new Set(all).size).toBe(1);
    expect(all[0]).toMatch(/^ssh-ed25519 AAAA[0-9A-Za-z+/=]+ box-ca-org_/);
    expect(sshpk.parseKey(all[0]!, 'ssh').type).toBe('ed25519');
    expect(await caKey()).toBe(all[0]);
    const row = (await svc.ctx.db.get('SELECT private_key FROM ssh_cas')) as { private_key: string };
    expect(row.private_key).toMatch(/^sealed:v1:/);
    expect(row.private_key).not.toContain('PRIVATE KEY');
  });

  it('signs a user certificate that verifies against the CA; ssh-keygen -L shows principals and validity', async () => {
    const user = sshpk.generatePrivateKey('ed25519');
    const res = await sign({ public_key: user.toPublic().toString('ssh'), principals: ['root', 'dev'], ttl_seconds: 600 });
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(out.key_id).toMatch(/^box-/);
    expect(out.certificate).toMatch(/^ssh-ed25519-cert-v01@openssh\.com /);
    const cert = sshpk.parseCertificate(out.certificate, 'openssh');
    const ca = sshpk.parseKey(await caKey(), 'ssh');
    expect(cert.isSignedByKey(ca)).toBe(true);
    expect(cert.isSignedByKey(sshpk.generatePrivateKey('ed25519').toPublic())).toBe(false);
    expect(cert.subjectKey.fingerprint('sha256').toString()).toBe(user.toPublic().fingerprint('sha256').toString());
    expect(cert.subjects.map((s) => s.uid)).toEqual(['root', 'dev']);
    expect(cert.validUntil.toISOString()).toBe(out.valid_before);
    const ttl = (cert.validUntil.getTime() - Date.now()) / 1000;
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssh-cert-'));
    const file = path.join(dir, 'id-cert.pub');
    fs.writeFileSync(file, `${out.certificate}\n`);
    const listing = execFileSync('ssh-keygen', ['-L', '-f', file], { encoding: 'utf8' });
    expect(listing).toMatch(/Type: ssh-ed25519-cert-v01@openssh.com user certificate/);
    expect(listing).toContain(`Key ID: "${out.key_id}"`);
    expect(listing).toMatch(/Principals:\s*\n\s+root\s*\n\s+dev/);
    expect(listing).toContain('permit-pty');
    expect(listing).toContain(`Signing CA: ED25519 ${ca.fingerprint('sha256').toString()}`);
    fs.rmSync(dir, { recursive: true });
  });

  it('defaults: principal root, one hour', async () => {
    const pub = sshpk.generatePrivateKey('ecdsa', { curve: 'nistp256' }).toPublic().toString('ssh');
    const out = await (await sign({ public_key: pub })).json();
    const cert = sshpk.parseCertificate(out.certificate, 'openssh');
    expect(cert.subjects.map((s) => s.uid)).toEqual(['root']);
    expect(Math.round((cert.validUntil.getTime() - Date.now()) / 1000 / 60)).toBe(60);
  });

  it('rejects anything but one sound public key (400 param public_key), bad principals and ttl', async () => {
    const priv = sshpk.generatePrivateKey('ed25519').toString('openssh');
    for (const bad of ['', 'not a key', 'ssh-ed25519 AAAAnotbase64!!', priv]) {
      const res = await sign({ public_key: bad });
      expect(res.status, bad.slice(0, 30)).toBe(400);
      expect((await errorOf(res)).param).toBe('public_key');
    }
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' });
    expect((await errorOf(await sign({ public_key: sshpk.parseKey(weak, 'pem').toString('ssh') }))).param).toBe('public_key');
    const pub = sshpk.generatePrivateKey('ed25519').toPublic().toString('ssh');
    expect((await errorOf(await sign({ public_key: pub, principals: ['ro ot'] }))).param).toBe('principals[0]');
    expect((await errorOf(await sign({ public_key: pub, principals: [] }))).param).toBe('principals');
    expect((await errorOf(await sign({ public_key: pub, ttl_seconds: 10 }))).param).toBe('ttl_seconds');
    expect((await errorOf(await sign({ public_key: pub, ttl_seconds: 8 * 86400 }))).param).toBe('ttl_seconds');
  });

  it('the CA survives a restart', async () => {
    const before = await caKey();
    await svc.close();
    svc = await startTestService({ dataDir: svc.dataDir });
    expect(await caKey()).toBe(before);
  });
});
