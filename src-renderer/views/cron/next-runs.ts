import { CronExpressionParser } from 'cron-parser';

/** The next `n` fire times of a five-field schedule read in `tz`, or the parser's complaint. */
export function nextRuns(schedule: string, tz: string, n = 5, from = new Date()): { runs: Date[] } | { error: string } {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5) return { error: 'A schedule has five fields: minute hour day-of-month month day-of-week.' };
  try {
    const it = CronExpressionParser.parse(schedule.trim(), { tz, currentDate: from });
    return { runs: Array.from({ length: n }, () => it.next().toDate()) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** A date as wall-clock time in a zone, e.g. "Mon 2026-11-23 09:00". */
export function inZone(d: Date, tz: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(d);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('weekday')} ${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

export const PRESETS = [
  { label: 'Every 5 minutes', schedule: '*/5 * * * *' },
  { label: 'Hourly', schedule: '0 * * * *' },
  { label: 'Daily 09:00', schedule: '0 9 * * *' },
  { label: 'Weekdays 18:30', schedule: '30 18 * * 1-5' },
  { label: 'Sundays 03:00', schedule: '0 3 * * 0' },
];

export function timeZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  const all = intl.supportedValuesOf?.('timeZone') ?? [];
  return ['UTC', ...all.filter((z) => z !== 'UTC')];
}
