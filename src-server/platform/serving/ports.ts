/** What the HTTP pipeline uses of the serving area: the Host check's rule (http/guard.ts). */
export { hostAllowed, isLoopback } from './listen-config.js';
