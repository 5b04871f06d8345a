import { expect, it } from 'vitest';
import { stopSignalGate } from './stop-signals.js';

it('repeats within the grace period are one stop; a later signal means "again"', () => {
  let t = 0;
  const seen: string[] = [];
  const gate = stopSignalGate(
    { stop: (s) => seen.push(`stop ${s}`), again: (s) => seen.push(`again ${s}`), duplicate: (s, ms) => seen.push(`dup ${s} ${ms}`) },
    1000,
    () => t,
  );
  gate('SIGTERM'); // the process group's signal
  t = 30;
  gate('SIGTERM'); // npm or start.mjs forwarding it
  t = 31;
  gate('SIGINT');
  expect(seen).toEqual(['stop SIGTERM', 'dup SIGTERM 30', 'dup SIGINT 31']);
  t = 2500; // a person pressing Ctrl+C again
  gate('SIGINT');
  expect(seen.at(-1)).toBe('again SIGINT');
});
