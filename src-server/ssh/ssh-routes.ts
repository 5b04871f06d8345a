import type { RouteRegistrar } from '../http/route.js';
import { CertificateBody, DEFAULT_PRINCIPALS, SSH_CERT_TTL, SshCertificate, SshCa as SshCaSchema } from '../contract/ssh.js';
import type { SshCa } from './ca.js';

/** The organization's SSH CA and the user certificates it signs. */
export function sshRoutes(r: RouteRegistrar, ca: SshCa) {
  r.add({
    method: 'get',
    path: '/v1/ssh/ca',
    area: 'box',
    tag: 'ssh',
    summary: "The organization's SSH CA public key (created on first request)",
    response: SshCaSchema,
    handler: async ({ auth }) => ({ public_key: await ca.publicKey(auth.orgId) }),
  });
  r.add({
    method: 'post',
    path: '/v1/ssh/certificate',
    area: 'box',
    tag: 'ssh',
    summary: 'Sign an SSH user certificate with the organization CA',
    body: CertificateBody,
    response: SshCertificate,
    handler: async ({ auth, body }) =>
      await ca.certify(auth.orgId, body.public_key, body.principals ?? DEFAULT_PRINCIPALS, body.ttl_seconds ?? SSH_CERT_TTL.default),
  });
}
