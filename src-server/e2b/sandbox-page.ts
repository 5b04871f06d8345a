import { invalid } from '../core/domain-errors.js';

/** What a listed sandbox is ordered and filtered by. */
interface Listed {
  row: { box_id: string; started_at: string };
}

export interface PageQuery {
  order?: 'asc' | 'desc';
  startedAfter?: string;
  limit: number;
  nextToken?: string;
}

/**
 * One page of E2B's sandbox list: by start time, newest first unless `order=asc` (E2B's
 * default), the sandbox id breaking ties. `nextToken` is where the page ended (start time and
 * id, not an offset), so a sandbox killed or created between two pages neither shifts an
 * unseen one out of the next page nor repeats a seen one.
 */
export function pageOf<T extends Listed>(all: T[], q: PageQuery): { items: T[]; nextToken?: string } {
  const dir = q.order === 'asc' ? 1 : -1;
  const key = (s: Listed): [string, string] => [s.row.started_at, s.row.box_id];
  const cmp = (a: [string, string], b: [string, string]) => dir * (a[0] === b[0] ? a[1].localeCompare(b[1]) : Date.parse(a[0]) - Date.parse(b[0]));
  const after = q.startedAfter === undefined ? -Infinity : Date.parse(q.startedAfter);
  const from = q.nextToken === undefined ? undefined : cursor(q.nextToken);
  const sorted = all
    .filter((s) => Date.parse(s.row.started_at) >= after)
    .filter((s) => !from || cmp(key(s), from) > 0)
    .sort((a, b) => cmp(key(a), key(b)));
  const items = sorted.slice(0, q.limit);
  const last = items.at(-1);
  return { items, nextToken: sorted.length > items.length && last ? Buffer.from(JSON.stringify(key(last))).toString('base64url') : undefined };
}

function cursor(token: string): [string, string] {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' && !Number.isNaN(Date.parse(v[0]))) return [v[0], v[1]];
  } catch {
    // not JSON: refused below
  }
  throw invalid('nextToken is not one this service gave: send the X-Next-Token of the previous page', 'nextToken');
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw invalid(`metadata: "${s}" is not valid percent-encoded UTF-8`, 'metadata');
  }
}

/** E2B's list filter `k1=v1&k2=v2` (each key and value URL-encoded), as an object. */
export function metadataFilter(q: string | undefined): Record<string, string> | undefined {
  return q === undefined ? undefined : Object.fromEntries([...new URLSearchParams(q)].map(([k, v]) => [decode(k), decode(v)]));
}
