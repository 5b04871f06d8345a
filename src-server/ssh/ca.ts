import { randomBytes, randomUUID } from 'node:crypto';
import sshpk from 'sshpk';
import type { AppBase } from '../app-context.js';
import { invalid } from '../core/domain-errors.js';
import { CryptoBox } from '../util/crypto-box.js';
import { SshCaRepo, type CaRow } from './ssh-ca-repo.js';

/** Extensions an interactive user certificate needs (what `ssh-keygen -s` grants by default). */
const USER_EXTENSIONS = ['permit-X11-forwarding', 'permit-agent-forwarding', 'permit-port-forwarding', 'permit-pty', 'permit-user-rc'];

/**
 * The organization's SSH certificate authority: one ed25519 key per org, made on first
 * request and stable after. The private key is sealed with the data dir's master key;
 * INSERT ... ON CONFLICT DO NOTHING followed by a re-read makes concurrent first
 * requests (even from two processes) agree on one key.
 */
export class SshCa {
  private cipher?: CryptoBox;
  private repo: SshCaRepo;

  constructor(private app: AppBase) {
    this.repo = new SshCaRepo(app.db);
  }

  private seal() {
    return (this.cipher ??= CryptoBox.forDataDir(this.app.config.dataDir));
  }

  private async row(orgId: string): Promise<CaRow> {
    const found = await this.repo.get(orgId);
    if (found) return found;
    const key = sshpk.generatePrivateKey('ed25519');
    const pub = key.toPublic();
    pub.comment = `box-ca-${orgId}`;
    const sealed = this.seal().seal(key.toString('openssh'), `ssh-ca\0${orgId}`).toString('base64');
    await this.repo.insertIfAbsent(orgId, { private_key: `sealed:v1:${sealed}`, public_key: pub.toString('ssh') });
    return (await this.repo.get(orgId))!;
  }

  async publicKey(orgId: string): Promise<string> {
    return (await this.row(orgId)).public_key;
  }

  private async privateKey(orgId: string): Promise<sshpk.PrivateKey> {
    const stored = (await this.row(orgId)).private_key.replace(/^sealed:v1:/, '');
    return sshpk.parsePrivateKey(this.seal().openString(Buffer.from(stored, 'base64'), `ssh-ca\0${orgId}`), 'openssh');
  }

  /** Signs a user certificate for `publicKey`; 400 (param public_key) for anything but one sound public key. */
  async certify(orgId: string, publicKey: string, principals: string[], ttlSeconds: number) {
    let subjectKey: sshpk.Key;
    try {
      subjectKey = sshpk.parseKey(publicKey.trim(), 'ssh');
    } catch {
      throw invalid('Invalid public_key: it must be one OpenSSH public key line, e.g. "ssh-ed25519 AAAA... comment".', 'public_key');
    }
    if (subjectKey.type === 'dsa' || (subjectKey.type === 'rsa' && subjectKey.size < 2048)) {
      throw invalid('Invalid public_key: DSA keys and RSA keys under 2048 bits are not accepted.', 'public_key');
    }
    const now = Date.now();
    const validUntil = new Date(Math.floor(now / 1000) * 1000 + ttlSeconds * 1000);
    const ca = await this.privateKey(orgId);
    const cert = sshpk.createCertificate(
      principals.map((p) => sshpk.identityForUser(p)),
      subjectKey,
      sshpk.identityForHost('**'),
      ca,
      { validFrom: new Date(now - 60_000), validUntil, serial: randomBytes(8) },
    );
    const keyId = `box-${randomUUID()}`;
    // sshpk signs with a default key id and no extensions; set ours and sign again.
    const sig = (cert as unknown as { signatures: { openssh: { keyId?: string; exts?: unknown[] } } }).signatures.openssh;
    sig.keyId = keyId;
    sig.exts = USER_EXTENSIONS.map((name) => ({ name, data: Buffer.alloc(0), critical: false }));
    cert.signWith(ca);
    return { certificate: cert.toString('openssh'), key_id: keyId, valid_before: validUntil.toISOString() };
  }
}
