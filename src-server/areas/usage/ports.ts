/** What other areas use of the usage area besides its module: the service's type (the inference gateway records tokens). */
export type { UsageService } from './usage-service.js';
