import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildState } from './build-fresh.mjs';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** A checkout with sources and a build, every file at `t` seconds (epoch). */
function checkout(t: number): { root: string; at: (rel: string, secs: number) => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-fresh-'));
  roots.push(root);
  const at = (rel: string, secs: number) => {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (!fs.existsSync(p)) fs.writeFileSync(p, rel);
    fs.utimesSync(p, secs, secs);
  };
  for (const f of ['package.json', 'src-renderer/views/boxes/List.tsx', 'packages/contract/src/boxes.ts', 'src-server/api/boxes.ts', 'src-main/main/index.ts'])
    at(f, t);
  return { root, at };
}

it('a missing build is missing; a build newer than every source is current', () => {
  const { root, at } = checkout(1_000);
  expect(buildState(root, 'renderer')).toBe('missing');
  expect(buildState(root, 'desktop')).toBe('missing');
  at('out/renderer/index.html', 2_000);
  at('out/main/index.js', 2_000);
  expect(buildState(root, 'renderer')).toBeNull();
  expect(buildState(root, 'desktop')).toBeNull();
});

it('a pulled or edited source makes the build stale, for the outputs built from it only', () => {
  const { root, at } = checkout(1_000);
  at('out/renderer/index.html', 2_000);
  at('out/main/index.js', 2_000);
  // the service's own code: the desktop bundle has it in-process, the web UI does not
  at('src-server/api/boxes.ts', 3_000);
  expect(buildState(root, 'renderer')).toBeNull();
  expect(buildState(root, 'desktop')).toBe('stale');
  // the API contract is imported by the UI
  at('packages/contract/src/boxes.ts', 3_000);
  expect(buildState(root, 'renderer')).toBe('stale');
  at('out/renderer/index.html', 4_000);
  at('out/main/index.js', 4_000);
  // a file added deep in the UI, and the lockfile (new dependency versions)
  at('src-renderer/views/new/Added.tsx', 5_000);
  expect(buildState(root, 'renderer')).toBe('stale');
  at('out/renderer/index.html', 6_000);
  at('package-lock.json', 7_000);
  expect(buildState(root, 'renderer')).toBe('stale');
});
