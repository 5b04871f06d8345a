import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A self-signed certificate for `cn` (SAN DNS:cn, one day), made with openssl as an operator
 * would: for loopback HTTPS upstreams in egress tests and bench:egress (certFile: the PEM on
 * disk, e.g. for BOX_EGRESS_CA_FILE). P-256 unless `rsa`.
 */
export function selfSignedCert(cn: string, keyType: 'ec' | 'rsa' = 'ec'): { key: string; cert: string; certFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-selfsigned-'));
  const key = keyType === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['-newkey', 'rsa:2048'];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...key,
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      `subjectAltName=DNS:${cn}`,
      '-keyout',
      `${dir}/key.pem`,
      '-out',
      `${dir}/cert.pem`,
    ],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(`${dir}/key.pem`, 'utf8'), cert: fs.readFileSync(`${dir}/cert.pem`, 'utf8'), certFile: `${dir}/cert.pem` };
}
