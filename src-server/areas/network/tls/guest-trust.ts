import tls from 'node:tls';
import type { GuestSetup } from '../../boxes/ports.js';

/** Where the egress CA lands in a box: the Debian local-CA directory (kept by update-ca-certificates) ... */
export const GUEST_CA_PATH = '/usr/local/share/ca-certificates/box-egress.crt';
/** ... and the system bundle every OpenSSL/GnuTLS client reads, rewritten as the public roots plus ours. */
export const GUEST_BUNDLE_PATH = '/etc/ssl/certs/ca-certificates.crt';

type TrustedCa = { certificate: string; fingerprint_sha256: string };

/**
 * What makes every box trust the egress proxy's certificates from its first exec, with no
 * exec at start: two files written through the agent after each start (and again in running
 * boxes when the CA rotates), and variables merged into every exec. `trusted()` is the
 * current CA first, then replaced ones still in their grace period (egress-ca.ts). The
 * bundle is Node's bundled Mozilla root store (the same list Debian's ca-certificates
 * packages) plus those, so public roots keep working for passthrough hosts;
 * `update-ca-certificates` in the box regenerates an equivalent file. curl and apt
 * (GnuTLS/OpenSSL) read the bundle path; Python's ssl and requests `SSL_CERT_FILE` /
 * `REQUESTS_CA_BUNDLE`; Node `NODE_EXTRA_CA_CERTS` (a file of several PEMs is fine); curl
 * `CURL_CA_BUNDLE`.
 */
export function guestTrust(trusted: () => TrustedCa[]): () => GuestSetup {
  let cached: { key: string; setup: GuestSetup } | undefined;
  return () => {
    const cas = trusted();
    const key = cas.map((c) => c.fingerprint_sha256).join(',');
    if (cached?.key !== key) {
      const ours = cas.map((c) => `# Box Desktop egress CA ${c.fingerprint_sha256}\n${c.certificate}`).join('');
      cached = {
        key,
        setup: {
          env: {
            SSL_CERT_FILE: GUEST_BUNDLE_PATH,
            REQUESTS_CA_BUNDLE: GUEST_BUNDLE_PATH,
            CURL_CA_BUNDLE: GUEST_BUNDLE_PATH,
            NODE_EXTRA_CA_CERTS: GUEST_CA_PATH,
          },
          files: [
            { path: GUEST_CA_PATH, content: cas.map((c) => c.certificate).join(''), mode: 0o644 },
            { path: GUEST_BUNDLE_PATH, content: Buffer.from(`${tls.rootCertificates.join('\n')}\n${ours}`), mode: 0o644 },
          ],
        },
      };
    }
    return cached.setup;
  };
}
