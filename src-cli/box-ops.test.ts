import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

/** Issue 29 in the CLI: `box files ls|mkdir|mv|rm` and `box boxes restore --in-place`. */
let svc: TestService;
let env: { BOX_URL: string; BOX_API_KEY: string };
const box = (args: string[]) => runCli(env, args);
const ok = async (args: string[]) => {
  const r = await box(args);
  if (r.code !== 0) throw new Error(`box ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return r;
};

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
  await ok(['boxes', 'create', 'cli-ops']);
});
afterAll(() => svc?.close());

describe('box files', () => {
  it('mkdir, mv, ls, rm by box name; errors name the field and exit non-zero', async () => {
    expect((await ok(['files', 'mkdir', 'cli-ops', '/root/work/a'])).stdout).toBe('cli-ops:/root/work/a/  created\n');
    await ok(['files', 'mv', 'cli-ops', '/root/work/a', '/root/work/b']);
    expect((await ok(['files', 'ls', 'cli-ops', '/root/work'])).stdout).toMatch(/b\/\s+directory/);
    const again = await box(['files', 'mkdir', 'cli-ops', '/root/work/b']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already exists');
    const bad = await box(['files', 'rm', 'cli-ops', '/root/../etc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('path');
    await ok(['files', 'rm', 'cli-ops', '/root/work', '--recursive']);
    const listed = JSON.parse((await ok(['files', 'ls', 'cli-ops', '/root', '--json'])).stdout) as { entries: { name: string }[] };
    expect(listed.entries.map((e) => e.name)).not.toContain('work');
  });
});

describe('box boxes restore --in-place', () => {
  it("takes the checkpoint's own box back to it (a later file is gone); a new name and --in-place together are refused", async () => {
    const id = JSON.parse((await ok(['boxes', 'get', 'cli-ops', '--json'])).stdout).box_id as string;
    const cp = JSON.parse((await ok(['boxes', 'checkpoint', 'cli-ops', '--name', 'base', '--json'])).stdout) as { checkpoint_id: string };
    await svc.api(`/v1/boxes/${id}/files?path=/root/later.txt`, { method: 'PUT', body: 'later' });
    const restored = JSON.parse((await ok(['boxes', 'restore', cp.checkpoint_id, '--in-place', '--json'])).stdout);
    expect(restored).toMatchObject({ box_id: id, status: 'running', last_start: { operation: 'restore' } });
    expect((await svc.api(`/v1/boxes/${id}/files?path=/root/later.txt`)).status).toBe(404);
    // it stands on that checkpoint, not on the later one: get and the checkpoint list say so
    await ok(['boxes', 'checkpoint', 'cli-ops', '--name', 'later']);
    await ok(['boxes', 'restore', cp.checkpoint_id, '--in-place']);
    expect((await ok(['boxes', 'get', 'cli-ops'])).stdout).toMatch(new RegExp(`on_checkpoint:\\s+${cp.checkpoint_id}`));
    const rows = (await ok(['boxes', 'checkpoints', 'cli-ops'])).stdout.split('\n');
    expect(rows.find((r) => r.includes(cp.checkpoint_id))).toMatch(/cli-ops\s*$/);
    expect(rows.find((r) => r.includes(' later '))).not.toMatch(/cli-ops\s*$/);
    const both = await box(['boxes', 'restore', cp.checkpoint_id, 'new-name', '--in-place']);
    expect(both.code).toBe(2);
  });
});
