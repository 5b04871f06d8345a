import { z } from 'zod';
import type { RouteRegistrar } from '../../app-context.js';
import { boxFor, readBox } from '../../boxes/box-access.js';
import { toBox } from '../../boxes/boxes-repo.js';
import { BoxIdParams } from '../../contract/boxes.js';
import { BoxInferenceBudget } from '../../contract/usage.js';

const BudgetBody = z.strictObject({ inference_budget_tokens: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable() });

/** Reads and sets a box's inference token budget (null = unlimited). */
export function budgetRoutes(r: RouteRegistrar) {
  r.add({
    method: 'get', path: '/v1/boxes/:box_id/inference-budget', area: 'box', tag: 'boxes', params: BoxIdParams, response: BoxInferenceBudget,
    summary: "The box's inference token budget and the tokens it has used through the gateway",
    handler: ({ app, auth, params }) => {
      const box = readBox(app, auth, params.box_id);
      const used = app.services.usage.boxTokensUsed(box.box_id);
      const budget = box.inference_budget_tokens;
      return { box_id: box.box_id, inference_budget_tokens: budget, used_tokens: used, remaining_tokens: budget === null ? null : Math.max(0, budget - used) };
    },
  });
  r.add({
    method: 'put', path: '/v1/boxes/:box_id/inference-budget', area: 'box', tag: 'boxes', params: BoxIdParams, body: BudgetBody,
    summary: "Set the box's inference token budget (input + output tokens over its life; null = unlimited)",
    handler: ({ app, req, auth, params, body }) => {
      boxFor(app, req, auth, params.box_id, 'auto_sleep');
      const repo = app.services.boxes.repo;
      repo.update(params.box_id, { inference_budget_tokens: body.inference_budget_tokens });
      return toBox(repo.get(params.box_id)!);
    },
  });
}
