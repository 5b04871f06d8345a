import type { RouteRegistrar } from '../../http/route.js';
import type { BoxAccess } from '../../boxes/ports.js';
import { BoxIdParams, BudgetBody } from '../../contract/boxes.js';
import { BoxInferenceBudget } from '../../contract/usage.js';
import type { BoxService } from '../../boxes/module.js';
import type { UsageService } from '../../usage/ports.js';

/** Reads and sets a box's inference token budget (null = unlimited). */
export function budgetRoutes(
  r: RouteRegistrar,
  s: { usage: Pick<UsageService, 'boxTokensUsed'>; boxes: Pick<BoxService, 'setInferenceBudget'>; access: BoxAccess },
) {
  const { access } = s;
  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/inference-budget',
    area: 'box',
    tag: 'boxes',
    params: BoxIdParams,
    response: BoxInferenceBudget,
    summary: "The box's inference token budget and the tokens it has used through the gateway",
    handler: async ({ auth, params }) => {
      const box = await access.readBox(auth, params.box_id);
      const used = await s.usage.boxTokensUsed(box.box_id);
      const budget = box.inference_budget_tokens;
      return { box_id: box.box_id, inference_budget_tokens: budget, used_tokens: used, remaining_tokens: budget === null ? null : Math.max(0, budget - used) };
    },
  });
  r.add({
    method: 'put',
    path: '/v1/boxes/:box_id/inference-budget',
    area: 'box',
    tag: 'boxes',
    params: BoxIdParams,
    body: BudgetBody,
    summary: "Set the box's inference token budget (input + output tokens over its life; null = unlimited)",
    handler: async ({ req, auth, params, body }) => {
      await access.boxFor(req, auth, params.box_id, 'auto_sleep');
      return await s.boxes.setInferenceBudget(params.box_id, body.inference_budget_tokens);
    },
  });
}
