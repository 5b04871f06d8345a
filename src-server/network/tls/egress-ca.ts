import '../../util/reflect-shim.js';
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import tls from 'node:tls';
import * as x509 from '@peculiar/x509';
import type { Db } from '../../db/connection.js';
import type { CryptoBox } from '../../util/crypto-box.js';
import { EgressCaRepo } from './egress-ca-repo.js';

/*
 * Certificates with @peculiar/x509 over Node's own WebCrypto, ECDSA P-256 keys: a P-256
 * key pair is generated in well under a millisecond and a leaf signed in ~1 ms, where
 * node-forge (pure-JS RSA) takes tens to hundreds of milliseconds per key and is no longer
 * actively maintained; @peculiar/x509 is typed, maintained, and does no crypto of its own.
 */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
/** Leaves live 30 days and are re-minted after 7 (so a long-running service never serves a stale one). */
const LEAF_DAYS = 30;
const LEAF_REFRESH_MS = 7 * DAY;
/** Hosts whose leaf is cached; the least recently used is dropped beyond this. */
const LEAF_CACHE = 2000;
const AAD = 'egress-ca';
/** How long a replaced CA stays trusted in boxes after a rotation (tuning `egressCaGraceMs`). */
const DEFAULT_CA_GRACE_MS = DAY;

const serial = () => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
};
const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END ${label}-----\n`;

interface CaInfo {
  certificate: string;
  fingerprint_sha256: string;
  created_at: string;
}

interface Leaf {
  key: string;
  cert: string;
  context: tls.SecureContext;
}

interface Loaded {
  info: CaInfo;
  cert: x509.X509Certificate;
  key: CryptoKey;
}

/**
 * The per-install certificate authority the egress proxy signs its per-host leaves with.
 * Created on first start; its key is stored sealed (AES-256-GCM under the data dir's
 * master key), never in clear on disk; `rotate()` replaces it: new leaves are signed by the
 * new CA at once, and the old certificate stays in `trusted()` for a grace period (kept in
 * egress_ca_retired), so what boxes trust covers connections made before the rotation.
 * Leaves share one in-memory key pair (per CA) and are cached per host name.
 */
export class EgressCa {
  private ca!: Loaded;
  private leafKeys!: { privatePem: string; publicKey: CryptoKey };
  private leaves = new Map<string, { ctx: Promise<Leaf>; at: number }>();
  private listeners: Array<(info: CaInfo) => void> = [];
  private retired: { certificate: string; fingerprint_sha256: string; until: number }[] = [];

  private constructor(
    private repo: EgressCaRepo,
    private cipher: () => CryptoBox,
    private graceMs: number,
  ) {}

  static async open(db: Db, cipher: () => CryptoBox, graceMs = DEFAULT_CA_GRACE_MS): Promise<EgressCa> {
    const ca = new EgressCa(new EgressCaRepo(db), cipher, graceMs);
    const row = await ca.repo.get();
    if (row) {
      const pkcs8 = cipher().open(row.key_sealed, AAD);
      const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, ALG, false, ['sign']);
      ca.ca = {
        info: { certificate: row.cert_pem, fingerprint_sha256: row.fingerprint_sha256, created_at: row.created_at },
        cert: new x509.X509Certificate(row.cert_pem),
        key,
      };
    } else {
      ca.ca = await ca.create();
    }
    await ca.newLeafKeys();
    await ca.loadRetired();
    return ca;
  }

  get info(): CaInfo {
    return { ...this.ca.info };
  }

  /** Called after a rotation with the new CA. */
  onChange(fn: (info: CaInfo) => void) {
    this.listeners.push(fn);
  }

  /**
   * The certificates boxes must trust: the current CA first, then replaced ones still in
   * their grace period. In memory (guest setup asks on every exec).
   */
  trusted(now = Date.now()): { certificate: string; fingerprint_sha256: string }[] {
    const old = this.retired.filter((r) => r.until > now && r.fingerprint_sha256 !== this.ca.info.fingerprint_sha256);
    return [
      { certificate: this.ca.info.certificate, fingerprint_sha256: this.ca.info.fingerprint_sha256 },
      ...old.map(({ certificate, fingerprint_sha256 }) => ({ certificate, fingerprint_sha256 })),
    ];
  }

  /** When the next replaced CA leaves `trusted()` (epoch ms), if one is still in its grace period. */
  nextGraceEnd(now = Date.now()): number | undefined {
    const ends = this.retired.map((r) => r.until).filter((u) => u > now);
    return ends.length ? Math.min(...ends) : undefined;
  }

  /** Reads the replaced CAs still in their grace period, forgetting expired ones. */
  private async loadRetired() {
    const rows = await this.repo.retiredStillTrusted(new Date().toISOString());
    this.retired = rows.map((r) => ({ certificate: r.cert_pem, fingerprint_sha256: r.fingerprint_sha256, until: Date.parse(r.trusted_until) }));
  }

  async rotate(): Promise<CaInfo> {
    const now = Date.now();
    await this.repo.retire(this.ca.info.fingerprint_sha256, this.ca.info.certificate, new Date(now).toISOString(), new Date(now + this.graceMs).toISOString());
    await this.loadRetired();
    this.ca = await this.create();
    await this.newLeafKeys();
    this.leaves.clear();
    for (const l of this.listeners) l(this.info);
    return this.info;
  }

  private async create(): Promise<Loaded> {
    const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: `CN=Box Desktop egress CA ${randomBytes(4).toString('hex')}, O=Box Desktop (this computer only)`,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 3650 * DAY),
      signingAlgorithm: ALG,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const certificate = cert.toString('pem') + '\n';
    const fingerprint_sha256 = createHash('sha256')
      .update(Buffer.from(cert.rawData))
      .digest('hex')
      .replace(/..(?!$)/g, '$&:')
      .toUpperCase();
    const created_at = new Date(now).toISOString();
    const sealed = this.cipher().seal(Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), AAD);
    await this.repo.put({ cert_pem: certificate, key_sealed: sealed, fingerprint_sha256, created_at });
    return { info: { certificate, fingerprint_sha256, created_at }, cert, key: keys.privateKey };
  }

  private async newLeafKeys() {
    const k = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    this.leafKeys = { privatePem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', k.privateKey)), publicKey: k.publicKey };
  }

  /** A leaf for `host` (a DNS name or an IP literal) signed by this CA: PEMs and a ready TLS context. */
  contextFor(host: string): Promise<Leaf> {
    const now = Date.now();
    const hit = this.leaves.get(host);
    if (hit && now - hit.at < LEAF_REFRESH_MS) {
      this.leaves.delete(host);
      this.leaves.set(host, hit);
      return hit.ctx;
    }
    const ctx = this.mint(host);
    this.leaves.set(host, { ctx, at: now });
    ctx.catch(() => this.leaves.delete(host));
    if (this.leaves.size > LEAF_CACHE) this.leaves.delete(this.leaves.keys().next().value!);
    return ctx;
  }

  private async mint(host: string): Promise<Leaf> {
    const { cert: caCert, key } = this.ca;
    const now = Date.now();
    const isIp = /^[\d.]+$|:/.test(host);
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${isIp ? 'ip' : host.slice(0, 64)}`,
      issuer: caCert.subject,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + LEAF_DAYS * DAY),
      signingAlgorithm: ALG,
      publicKey: this.leafKeys.publicKey,
      signingKey: key,
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: isIp ? 'ip' : 'dns', value: host }]),
        new x509.BasicConstraintsExtension(false),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ],
    });
    const cert = leaf.toString('pem');
    return { key: this.leafKeys.privatePem, cert, context: tls.createSecureContext({ key: this.leafKeys.privatePem, cert }) };
  }
}
