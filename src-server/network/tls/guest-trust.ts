import tls from 'node:tls';
import type { GuestSetup } from '../../boxes/guest-setup.js';
import type { CaInfo } from './egress-ca.js';

/** Where the egress CA lands in a box: the Debian local-CA directory (kept by update-ca-certificates) ... */
export const GUEST_CA_PATH = '/usr/local/share/ca-certificates/box-egress.crt';
/** ... and the system bundle every OpenSSL/GnuTLS client reads, rewritten as the public roots plus ours. */
export const GUEST_BUNDLE_PATH = '/etc/ssl/certs/ca-certificates.crt';

/**
 * What makes every box trust the egress proxy's certificates from its first exec, with no
 * exec at start: two files written through the agent after each start, and variables merged
 * into every exec. The bundle is Node's bundled Mozilla root store (the same list Debian's
 * ca-certificates packages) plus the install's CA, so public roots keep working for
 * passthrough hosts; `update-ca-certificates` in the box regenerates an equivalent file.
 * curl and apt (GnuTLS/OpenSSL) read the bundle path; Python's ssl and requests
 * `SSL_CERT_FILE` / `REQUESTS_CA_BUNDLE`; Node `NODE_EXTRA_CA_CERTS`; curl `CURL_CA_BUNDLE`.
 */
export function guestTrust(ca: () => CaInfo): () => GuestSetup {
  let cached: { fp: string; setup: GuestSetup } | undefined;
  return () => {
    const info = ca();
    if (cached?.fp !== info.fingerprint_sha256) {
      const bundle = Buffer.from(`${tls.rootCertificates.join('\n')}\n# Box Desktop egress CA ${info.fingerprint_sha256}\n${info.certificate}`);
      cached = {
        fp: info.fingerprint_sha256,
        setup: {
          env: { SSL_CERT_FILE: GUEST_BUNDLE_PATH, REQUESTS_CA_BUNDLE: GUEST_BUNDLE_PATH, CURL_CA_BUNDLE: GUEST_BUNDLE_PATH, NODE_EXTRA_CA_CERTS: GUEST_CA_PATH },
          files: [
            { path: GUEST_CA_PATH, content: info.certificate, mode: 0o644 },
            { path: GUEST_BUNDLE_PATH, content: bundle, mode: 0o644 },
          ],
        },
      };
    }
    return cached.setup;
  };
}
