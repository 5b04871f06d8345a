import '../../kernel/util/reflect-shim.js';
import { createHash, createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';

/*
 * The certificate the service serves its API with when it listens beyond loopback
 * (docs/architecture.md, "Serving a network"). Either the operator's (`--tls-cert`,
 * `--tls-key`, read as they are), or one the service makes: a serving CA of its own (not
 * the egress CA, which boxes trust: a box must never be able to impersonate the service)
 * and a leaf for the allowed host names, kept under `<data dir>/tls/` (keys 0600). The leaf
 * is re-used across starts while its names are the same and it is valid for 30 more days,
 * so its fingerprint, which clients pin on first contact, stays the same.
 */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
const CA_DAYS = 3650;
const LEAF_DAYS = 825;
const RENEW_BEFORE_MS = 30 * DAY;

export interface ServingCert {
  /** PEM: the leaf, then the CA that signed it (when the service made it). */
  cert: string;
  key: string;
  /** SHA-256 of the leaf's DER, `AB:CD:...` (what `box context add` pins, and `openssl x509 -fingerprint -sha256` prints). */
  fingerprint: string;
  /** `made` by this service (its serving CA), or `given` by the operator. */
  source: 'made' | 'given';
  /** Where the files are (for the banner). */
  files: { cert: string; key: string };
}

const serial = () => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
};
const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END ${label}-----\n`;

/** SHA-256 fingerprint of the first certificate of a PEM, colon-separated upper-case hex. */
function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

const isIp = (h: string) => /^[\d.]+$/.test(h) || h.includes(':');

/** The operator's certificate and key, checked to belong together. */
export function givenCert(certFile: string, keyFile: string): ServingCert {
  const read = (file: string, what: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`--tls-${what} ${file}: ${(e as Error).message}`, { cause: e });
    }
  };
  const cert = read(certFile, 'cert');
  const key = read(keyFile, 'key');
  let x: X509Certificate;
  try {
    x = new X509Certificate(cert);
  } catch (e) {
    throw new Error(`--tls-cert ${certFile}: not a PEM certificate (${(e as Error).message})`, { cause: e });
  }
  try {
    if (!x.checkPrivateKey(createPrivateKey(key))) throw new Error('the key does not belong to the certificate');
  } catch (e) {
    throw new Error(`--tls-key ${keyFile}: ${(e as Error).message}`, { cause: e });
  }
  return { cert, key, fingerprint: x.fingerprint256, source: 'given', files: { cert: certFile, key: keyFile } };
}

interface Made {
  names: string[];
  not_after: string;
}

/**
 * The service's own serving CA and a leaf for `names` (made or re-used, under `<dataDir>/tls/`):
 * `server` for the API, `ingress` for the ingress's https (`*.box.localhost`).
 */
export async function madeCert(dataDir: string, names: string[], leafName: 'server' | 'ingress' = 'server'): Promise<ServingCert> {
  const dir = path.join(dataDir, 'tls');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const f = {
    caCert: path.join(dir, 'serving-ca.pem'),
    caKey: path.join(dir, 'serving-ca-key.pem'),
    cert: path.join(dir, `${leafName}.pem`),
    key: path.join(dir, `${leafName}-key.pem`),
    meta: path.join(dir, `${leafName}.json`),
  };
  const wanted = [...new Set(names)].sort();
  const meta = readJson<Made>(f.meta);
  if (meta && JSON.stringify(meta.names) === JSON.stringify(wanted) && Date.parse(meta.not_after) - Date.now() > RENEW_BEFORE_MS && fs.existsSync(f.key)) {
    const cert = fs.readFileSync(f.cert, 'utf8');
    return { cert, key: fs.readFileSync(f.key, 'utf8'), fingerprint: fingerprintOf(cert), source: 'made', files: { cert: f.cert, key: f.key } };
  }
  const ca = await loadOrMakeCa(f.caCert, f.caKey);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const notAfter = new Date(now + LEAF_DAYS * DAY);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${(wanted.find((n) => !isIp(n)) ?? 'box-service').slice(0, 64)}, O=Box Desktop service`,
    issuer: ca.cert.subject,
    notBefore: new Date(now - DAY),
    notAfter,
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    extensions: [
      new x509.SubjectAlternativeNameExtension(wanted.map((n) => ({ type: isIp(n) ? ('ip' as const) : ('dns' as const), value: n }))),
      new x509.BasicConstraintsExtension(false),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  const cert = leaf.toString('pem') + '\n' + ca.cert.toString('pem') + '\n';
  const key = pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  writeFile(f.key, key, 0o600);
  writeFile(f.cert, cert, 0o644);
  writeFile(f.meta, `${JSON.stringify({ names: wanted, not_after: notAfter.toISOString() } satisfies Made, null, 2)}\n`, 0o644);
  return { cert, key, fingerprint: fingerprintOf(cert), source: 'made', files: { cert: f.cert, key: f.key } };
}

async function loadOrMakeCa(certFile: string, keyFile: string): Promise<{ cert: x509.X509Certificate; key: CryptoKey }> {
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    const cert = new x509.X509Certificate(fs.readFileSync(certFile, 'utf8'));
    const der = Buffer.from(
      fs
        .readFileSync(keyFile, 'utf8')
        .replace(/-----[^-]+-----/g, '')
        .replace(/\s+/g, ''),
      'base64',
    );
    return { cert, key: await webcrypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']) };
  }
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=Box Desktop serving CA ${createHash('sha256').update(randomBytes(8)).digest('hex').slice(0, 8)}, O=Box Desktop service`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + CA_DAYS * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  writeFile(keyFile, pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), 0o600);
  writeFile(certFile, cert.toString('pem') + '\n', 0o644);
  return { cert, key: keys.privateKey };
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function writeFile(file: string, text: string, mode: number) {
  fs.writeFileSync(`${file}.tmp`, text, { mode });
  fs.chmodSync(`${file}.tmp`, mode);
  fs.renameSync(`${file}.tmp`, file);
}
