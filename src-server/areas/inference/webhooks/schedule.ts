/**
 * Retry schedule of completion webhooks (spec, Events: rounds of up to 3 back-to-back
 * attempts within a 30 s budget, increasing delays of up to a few minutes between
 * rounds, at most 20 rounds). Tests inject a short one via `tuning.webhookSchedule`.
 */
import type { WebhookSchedule } from '../../../platform/settings.js';

export type { WebhookSchedule };

const DEFAULT_SCHEDULE: WebhookSchedule = {
  roundDelaysMs: [5_000, 15_000, 30_000, 60_000, 120_000, 180_000, 240_000, 300_000],
  attemptsPerRound: 3,
  maxRounds: 20,
  attemptTimeoutMs: 10_000,
  roundBudgetMs: 30_000,
};

export function scheduleFrom(over: Partial<WebhookSchedule>): WebhookSchedule {
  return { ...DEFAULT_SCHEDULE, ...over };
}

export function delayAfterRound(s: WebhookSchedule, round: number): number {
  const d = s.roundDelaysMs;
  return d[Math.min(Math.max(round, 1), d.length) - 1] ?? 0;
}
