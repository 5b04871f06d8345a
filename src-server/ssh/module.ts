import type { AppBase, Area } from '../app-context.js';
import { CertificateBody, DEFAULT_PRINCIPALS, SSH_CERT_TTL, SshCertificate, SshCa as SshCaSchema } from '../contract/ssh.js';
import { SshCa } from './ca.js';

export interface SshService {
  /** The org CA's public key (OpenSSH line) that boxes trust once SSH is turned on in them. */
  caPublicKey(orgId: string): string;
}

/** SSH trust: the organization's certificate authority and user certificates it signs. */
export function sshArea(app: AppBase) {
  const ca = new SshCa(app);
  const ssh: SshService = { caPublicKey: (orgId) => ca.publicKey(orgId) };
  const area: Area = {
    name: 'ssh',
    routes(r) {
      r.add({
        method: 'get',
        path: '/v1/ssh/ca',
        area: 'box',
        tag: 'ssh',
        summary: "The organization's SSH CA public key (created on first request)",
        response: SshCaSchema,
        handler: ({ auth }) => ({ public_key: ca.publicKey(auth.orgId) }),
      });
      r.add({
        method: 'post',
        path: '/v1/ssh/certificate',
        area: 'box',
        tag: 'ssh',
        summary: 'Sign an SSH user certificate with the organization CA',
        body: CertificateBody,
        response: SshCertificate,
        handler: ({ auth, body }) => ca.certify(auth.orgId, body.public_key, body.principals ?? DEFAULT_PRINCIPALS, body.ttl_seconds ?? SSH_CERT_TTL.default),
      });
    },
  };
  return { ssh, area };
}
