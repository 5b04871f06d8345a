import type { BoxLookup } from '../../boxes/ports.js';
import { LimitExceeded } from '../../core/domain-errors.js';
import type { UsageService } from '../../usage/ports.js';

export interface BudgetDeps {
  boxes: Pick<BoxLookup, 'get'>;
  usage: Pick<UsageService, 'boxTokensUsed'>;
}

/**
 * Refuses a request from a box whose `inference_budget_tokens` (input + output tokens over
 * the box's life) is spent. Answered 429 `rate_limit_error`, code
 * `inference_budget_exhausted`, WITHOUT Retry-After and with `x-should-retry: false`:
 * per the spec's 429 rule 2 it is a limit that needs something changed first (raise the
 * budget), and the header stops the OpenAI/Anthropic SDKs' automatic retries. Not 402: that
 * status is the organization's credits (`billing_error`, with `billing_url`), which a box
 * budget is not. The check runs before each request, so one request may overshoot the
 * budget by its own size; the next one is refused.
 */
export async function checkBoxBudget(deps: BudgetDeps, boxId: string): Promise<void> {
  const budget = (await deps.boxes.get(boxId))?.inference_budget_tokens ?? null;
  if (budget === null) return;
  const used = await deps.usage.boxTokensUsed(boxId);
  if (used < budget) return;
  throw new LimitExceeded(`Box ${boxId} has used its inference budget (${used} of ${budget} tokens); raise inference_budget_tokens on the box to continue.`, {
    code: 'inference_budget_exhausted',
    param: 'inference_budget_tokens',
    final: true,
  });
}
