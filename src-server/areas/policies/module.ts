import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { BoxPolicyLinks } from '../boxes/ports.js';
import type { BoxService } from '../boxes/module.js';
import { boxPolicyRoutes } from './box-policy-routes.js';
import { policyRoutes } from './policies-routes.js';
import { Policies } from './policies-service.js';

/**
 * HTTP (egress) policies: documents, their attachment to boxes, and evaluation for the egress
 * proxy. Built before the boxes area; its routes get the boxes' services from wiring.ts (`area`).
 */
export function policiesArea(app: AppBase, deps: { boxesRepo: BoxPolicyLinks }) {
  const policies = new Policies(app, deps.boxesRepo);
  const area = (late: { boxes: Pick<BoxService, 'setHttpPolicy'>; access: BoxAccess }): Area => ({
    name: 'policies',
    routes(r) {
      policyRoutes(r, policies);
      boxPolicyRoutes(r, policies, late);
    },
  });
  return { policies, area };
}
export type { Policies } from './policies-service.js';
