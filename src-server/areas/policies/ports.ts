/**
 * What other areas use of the policies area besides its module: the service's type and the
 * pure evaluation of a policy document (the egress proxy decides each request with it).
 */
export type { PoliciesService } from './policies-service.js';
export { evaluate, matchHost, portAllowed, type EgressRequest } from './evaluate.js';
