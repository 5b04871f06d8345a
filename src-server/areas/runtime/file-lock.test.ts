import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.js';

describe('withFileLock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxlock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serialises holders of the same lock file', async () => {
    const lock = join(dir, 'a.lock');
    const events: string[] = [];
    const holder = (name: string) =>
      withFileLock(lock, async () => {
        events.push(`${name}:in`);
        await new Promise((r) => setTimeout(r, 300));
        events.push(`${name}:out`);
      });
    await Promise.all([holder('one'), holder('two')]);
    expect(events).toHaveLength(4);
    expect(events[0].split(':')[0]).toBe(events[1].split(':')[0]); // no interleaving
  });

  it('takes over a lock whose owner is dead', async () => {
    const lock = join(dir, 'b.lock');
    writeFileSync(lock, '999999999');
    const t0 = Date.now();
    expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 5000 })).toBe('got it');
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
