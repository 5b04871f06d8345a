import type { AppBase, Area } from '../app-context.js';
import type { BoxesRepo } from '../boxes/boxes-repo.js';
import { boxPolicyRoutes } from './box-routes.js';
import { policyRoutes } from './routes.js';
import { Policies } from './service.js';

/** HTTP (egress) policies: documents, their attachment to boxes, and evaluation for the egress proxy. */
export function policiesArea(app: AppBase, deps: { boxesRepo: BoxesRepo }) {
  const policies = new Policies(app, deps.boxesRepo);
  const area: Area = {
    name: 'policies',
    routes(r) {
      policyRoutes(r, policies);
      boxPolicyRoutes(r, policies);
    },
  };
  return { policies, area };
}
