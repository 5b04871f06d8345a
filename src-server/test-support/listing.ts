import { expect } from 'vitest';

/**
 * A directory listing answered as a stream (chunked, no whole body built: issue 28), with
 * `count` entries sorted by name, the first being `first` (a file). Volumes and boxes alike.
 */
export async function expectStreamedListing(res: Response, count: number, first: string): Promise<void> {
  expect(res.status).toBe(200);
  expect(res.headers.get('transfer-encoding')).toBe('chunked');
  expect(res.headers.get('content-length')).toBeNull();
  const { entries } = (await res.json()) as { entries: { name: string; type: string }[] };
  expect(entries.length).toBe(count);
  expect(entries[0]).toMatchObject({ name: first, type: 'file' });
  expect(entries.every((e, i) => i === 0 || entries[i - 1]!.name < e.name)).toBe(true);
}
