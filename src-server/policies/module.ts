import type { AppBase, Area } from '../app-context.js';
import { boxPolicyRoutes } from './box-routes.js';
import { policyRoutes } from './routes.js';
import { Policies } from './service.js';

/** HTTP (egress) policies: documents, their attachment to boxes, and evaluation for the egress proxy. */
export function policiesArea(app: AppBase) {
  const policies = new Policies(app);
  const area: Area = {
    name: 'policies',
    routes(r) {
      policyRoutes(r, policies);
      boxPolicyRoutes(r, policies);
    },
  };
  return { policies, area };
}
