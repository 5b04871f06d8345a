import { z } from 'zod';

export const SshCa = z.object({ public_key: z.string() });
export type SshCa = z.infer<typeof SshCa>;

export const SSH_CERT_TTL = { min: 60, max: 7 * 86400, default: 3600 } as const;
export const DEFAULT_PRINCIPALS = ['root'];

export const CertificateBody = z.strictObject({
  /** One OpenSSH public key line, e.g. `ssh-ed25519 AAAA... comment`. */
  public_key: z.string().min(1).max(16384),
  /** Users the certificate may log in as; default `root`. */
  principals: z
    .array(z.string().regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be a user name (letters, digits, ".", "_", "@", "-")'))
    .min(1)
    .max(32)
    .optional(),
  ttl_seconds: z.number().int().min(SSH_CERT_TTL.min).max(SSH_CERT_TTL.max).optional(),
});

export const SshCertificate = z.object({
  /** An OpenSSH certificate line (`ssh-ed25519-cert-v01@openssh.com AAAA...`), for `<key>-cert.pub`. */
  certificate: z.string(),
  key_id: z.string(),
  valid_before: z.string(),
});
export type SshCertificate = z.infer<typeof SshCertificate>;
