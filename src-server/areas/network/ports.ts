/**
 * What other areas use of the network area besides its module: the per-box egress proxy,
 * which the image builder runs for its builder boxes (images/builder-egress.ts).
 */
export { BoxProxy } from './egress/box-proxy.js';
