import type { AreaModule } from '../app-context.js';
import { boxPolicyRoutes } from './box-routes.js';
import { policyRoutes } from './routes.js';
import { Policies } from './service.js';

/** HTTP (egress) policies: documents, their attachment to boxes, and evaluation for the egress proxy. */
export const policiesModule: AreaModule = {
  name: 'policies',
  install(app, r) {
    const policies = new Policies(app);
    app.services.policies = policies;
    policyRoutes(r, policies);
    boxPolicyRoutes(r, policies);
  },
};
