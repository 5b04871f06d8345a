import { describe, expect, it } from 'vitest';
import { inZone, nextRuns } from './next-runs.js';

describe('cron schedule preview', () => {
  it('computes the next runs in the chosen time zone', () => {
    const from = new Date('2026-03-07T12:00:00Z');
    const r = nextRuns('0 9 * * *', 'Europe/Paris', 3, from);
    if (!('runs' in r)) throw new Error(r.error);
    // 09:00 in Paris is 08:00 UTC in winter; the DST change on 2026-03-29 does not apply yet.
    expect(r.runs.map((d) => d.toISOString())).toEqual(['2026-03-08T08:00:00.000Z', '2026-03-09T08:00:00.000Z', '2026-03-10T08:00:00.000Z']);
    expect(inZone(r.runs[0], 'Europe/Paris')).toBe('Sun 2026-03-08 09:00');
  });

  it('explains a bad schedule', () => {
    expect(nextRuns('0 9 * *', 'UTC')).toHaveProperty('error');
    expect(nextRuns('99 9 * * *', 'UTC')).toHaveProperty('error');
  });
});
