import type { RouteRegistrar } from '../../app-context.js';
import { boxFor } from '../../boxes/box-access.js';
import { BoxIdParams, BudgetBody } from '../../contract/boxes.js';

/** Sets a box's inference token budget (null = unlimited); answers the box. */
export function budgetRoutes(r: RouteRegistrar) {
  r.add({
    method: 'put', path: '/v1/boxes/:box_id/inference-budget', area: 'box', tag: 'boxes', params: BoxIdParams, body: BudgetBody,
    summary: "Set the box's inference token budget (input + output tokens over its life; null = unlimited)",
    handler: ({ app, req, auth, params, body }) => {
      boxFor(app, req, auth, params.box_id, 'auto_sleep');
      return app.services.boxes.setInferenceBudget(params.box_id, body.inference_budget_tokens);
    },
  });
}
