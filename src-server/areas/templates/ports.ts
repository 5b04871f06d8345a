/** What other areas use of the templates area besides its module: the service's type (images list their templates). */
export type { TemplateService } from './template-service.js';
