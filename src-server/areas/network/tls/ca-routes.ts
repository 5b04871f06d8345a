import type { RouteRegistrar } from '../../../platform/http/route.js';
import type { EgressService } from '../egress/egress-service.js';

/**
 * The egress CA (ours, beyond the spec: its operations are in contract/routes.ts). Its certificate
 * is public by nature (every box holds it). Rotating re-keys interception at once and
 * answers once running boxes trust the new CA (`boxes_updated`; `boxes_failed` lists boxes
 * whose agent could not be written, which get it at their next start); the old CA stays
 * trusted in boxes for a grace period (24 hours by default) so that connections made before
 * the rotation survive. Sleeping and paused boxes get the new files when they wake.
 */
export function egressCaRoutes(r: RouteRegistrar, egress: EgressService) {
  r.add({
    method: 'get',
    path: '/v1/egress/ca',
    area: 'box',
    tag: 'networking',
    summary: "The egress proxy's certificate authority (PEM) that every box trusts, with its SHA-256 fingerprint",
    handler: () => egress.ca.info,
  });
  r.add({
    method: 'post',
    path: '/v1/egress/ca/rotate',
    area: 'box',
    tag: 'networking',
    idempotent: false,
    summary: 'Replace the egress CA with a new key and certificate; running boxes trust it before this answers (the old one too, for a grace period)',
    handler: () => egress.rotateCa(),
  });
}
