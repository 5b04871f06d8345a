import type { RouteRegistrar } from '../../app-context.js';
import type { EgressService } from '../egress/egress-service.js';

/**
 * The egress CA (api-surface.md, "Egress CA and inference inside boxes"). Its certificate
 * is public by nature (every box holds it); rotating it re-keys interception at once and
 * boxes trust the new one from their next start (running boxes keep the old file until then).
 */
export function egressCaRoutes(r: RouteRegistrar, egress: EgressService) {
  r.add({
    method: 'get', path: '/v1/egress/ca', area: 'box', tag: 'networking',
    summary: "The egress proxy's certificate authority (PEM) that every box trusts, with its SHA-256 fingerprint",
    handler: () => egress.ca.info,
  });
  r.add({
    method: 'post', path: '/v1/egress/ca/rotate', area: 'box', tag: 'networking', idempotent: false,
    summary: 'Replace the egress CA with a new key and certificate; boxes trust it from their next start',
    handler: () => egress.ca.rotate(),
  });
}
