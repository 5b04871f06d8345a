/**
 * What other areas use of the inference area besides its module: the per-box credentials
 * the egress proxy checks when a box calls the gateway (inference/box/box-credentials.ts).
 */
export { HmacBoxCredentials, INTERNAL_HEADERS, type BoxCredentials } from './box/box-credentials.js';
