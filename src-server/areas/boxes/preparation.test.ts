import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Preparation } from '@box/contract/preparation';
import { slowImageRuntime } from '../../test-support/slow-image-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { runCli } from '../../../src-cli/test-support/cli.js';
import { PreparationTracker } from './preparation.js';

describe('preparation tracker', () => {
  it('estimates the time left from the pace so far and says which part it is in', () => {
    let now = 1_000_000;
    const t = new PreparationTracker(() => now);
    expect(t.snapshot()).toMatchObject({ ready: false, stages: [{ name: 'image', state: 'pending', eta_seconds: null }] });
    t.onImage({ phase: 'kernel', percent: 0, message: 'building kernel' });
    now += 30_000;
    t.onImage({ phase: 'rootfs', percent: 25, message: 'apt: unpacking' });
    const s = t.snapshot().stages[0]!;
    expect(s).toMatchObject({ state: 'running', percent: 25, eta_seconds: 90 });
    expect(s.message).toMatch(/^building the Debian root filesystem .*: apt: unpacking$/);
    // No news for 20 s: 70 s left, not a stale 90 (issue 29: "time left" that grew), then 0 at worst.
    now += 20_000;
    expect(t.snapshot().stages[0]!.eta_seconds).toBe(70);
    now += 100_000;
    expect(t.snapshot().stages[0]!.eta_seconds).toBe(0);
    now -= 120_000;
    t.onImage({ phase: 'done', percent: 100, message: 'guest image ready' });
    expect(Preparation.parse(t.snapshot())).toMatchObject({ ready: true, stages: [{ state: 'ready', percent: 100, eta_seconds: null }] });
    t.failed('image', new Error('debootstrap failed\nlong log'));
    expect(t.snapshot().stages[0]).toMatchObject({ state: 'failed', error: 'debootstrap failed' });
  });
});

describe('the time left never goes up (issue 35)', () => {
  it('a slower pace never raises the estimate (it counts down, then stays at 0); a faster pace lowers it', () => {
    let now = 0;
    const t = new PreparationTracker(() => now);
    const eta = () => t.snapshot().stages[0]!.eta_seconds;
    t.onImage({ phase: 'kernel', percent: 0, message: 'k' });
    now += 10_000;
    t.onImage({ phase: 'base', percent: 50, message: 'fast start' }); // pace: 10 s more
    expect(eta()).toBe(10);
    now += 4_000;
    expect(eta()).toBe(6);
    t.onImage({ phase: 'base', percent: 55, message: 'slower' }); // pace alone would say 11.5 s
    expect(eta()).toBe(6);
    now += 30_000;
    t.onImage({ phase: 'rootfs', percent: 60, message: 'much slower' }); // pace: 29 s
    expect(eta()).toBe(0);
    const seen: number[] = [];
    for (let p = 61; p < 100; p += 3) {
      now += 5_000;
      t.onImage({ phase: 'rootfs', percent: p, message: 'x' });
      seen.push(eta()!);
    }
    expect(seen.every((v, i) => i === 0 || v <= seen[i - 1]!)).toBe(true);
    // a faster pace does lower it
    let now2 = 0;
    const u = new PreparationTracker(() => now2);
    u.onImage({ phase: 'kernel', percent: 0, message: 'k' });
    now2 += 10_000;
    u.onImage({ phase: 'base', percent: 10, message: 'slow start' }); // 90 s
    now2 += 1_000;
    u.onImage({ phase: 'base', percent: 50, message: 'fast' }); // 11 s
    expect(u.snapshot().stages[0]!.eta_seconds).toBe(11);
  });
});

describe('the template stage (issue 35: the code interpreter warms up in the background, shown as progress)', () => {
  it('appears with the first build, counts down, never goes up, and ends ready or failed', () => {
    let now = 0;
    const t = new PreparationTracker(() => now);
    t.onImage({ phase: 'done', percent: 100, message: 'guest image ready' });
    expect(t.snapshot()).toMatchObject({ ready: true, stages: [{ name: 'image' }] });
    const shape = { vcpus: 1, memoryMib: 1024 };
    t.onTemplate({ shape, state: 'running', phase: 'boot', percent: 10 });
    const stage = () => t.snapshot().stages.find((s) => s.name === 'template')!;
    expect(t.snapshot().ready).toBe(false);
    expect(stage()).toMatchObject({ state: 'running', percent: 10, eta_seconds: null, message: 'boot (1 vCPU, 1024 MiB)' });
    now += 10_000;
    t.onTemplate({ shape, state: 'running', phase: 'warm-up: code', percent: 25 }); // pace: 30 s
    expect(stage()).toMatchObject({ eta_seconds: 30, message: 'warm-up: code (1 vCPU, 1024 MiB)' });
    const seen = [stage().eta_seconds!];
    for (const p of [26, 27, 80, 90]) {
      now += 20_000; // the warm-up is slower than the boot: the pace alone would say more
      t.onTemplate({ shape, state: 'running', phase: 'prepare', percent: p });
      seen.push(stage().eta_seconds!);
    }
    expect(
      seen.every((v, i) => i === 0 || v <= seen[i - 1]!),
      seen.join(' '),
    ).toBe(true);
    t.onTemplate({ shape, state: 'ready', phase: 'ready', percent: 100 });
    expect(t.snapshot()).toMatchObject({ ready: true });
    expect(stage()).toMatchObject({ state: 'ready', percent: 100, eta_seconds: null });
    // a later build starts over (its own pace), a failure says why
    now += 5_000;
    t.onTemplate({ shape, state: 'running', phase: 'boot', percent: 10 });
    expect(stage()).toMatchObject({ state: 'running', percent: 10, eta_seconds: null, started_at: new Date(now).toISOString() });
    t.onTemplate({ shape, state: 'failed', phase: 'boot', percent: 10, error: 'the agent did not answer\nlog' });
    expect(stage()).toMatchObject({ state: 'failed', error: 'the agent did not answer' });
    expect(Preparation.parse(t.snapshot()).ready).toBe(false);
  });
});

describe('first box: progress in the API and the CLI', () => {
  let svc: TestService;
  beforeAll(async () => {
    const tracker = new PreparationTracker();
    const Runtime = slowImageRuntime(tracker);
    svc = await startTestService({ runtime: (d) => new Runtime(d), preparation: tracker });
  });
  afterAll(() => svc?.close());

  it('GET /v1/status has preparation; box boxes create prints the stages while it waits', async () => {
    const before = Preparation.parse(((await (await svc.api('/v1/status')).json()) as { preparation: unknown }).preparation);
    expect(before.stages[0]!.state).toBe('pending');
    const r = await runCli({ BOX_URL: svc.url, BOX_API_KEY: svc.key }, ['boxes', 'create', 'first', '--app', 'prep']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Guest image .*: \d+% building the Debian root filesystem/);
    expect(r.stdout).toContain('status:');
    const after = Preparation.parse(((await (await svc.api('/v1/status')).json()) as { preparation: unknown }).preparation);
    expect(after.ready).toBe(true);
    const st = await runCli({ BOX_URL: svc.url, BOX_API_KEY: svc.key }, ['status']);
    expect(st.stdout).toMatch(/Guest image .*: ready/);
  });
});

describe('the code stage (issue 35: the code interpreter is a layer built after the base, shown as progress)', () => {
  let svc: TestService;
  let now = 0;
  const tracker = new PreparationTracker(() => now);
  beforeAll(async () => {
    const Runtime = slowImageRuntime(tracker);
    svc = await startTestService({ runtime: (d) => new Runtime(d), preparation: tracker });
  });
  afterAll(() => svc?.close());

  it('appears when the layer build starts, counts down and never goes up, in GET /v1/status and box status', async () => {
    tracker.onImage({ phase: 'done', percent: 100, message: 'guest image ready' });
    tracker.onCodeLayer({ phase: 'layer', percent: 0, message: 'starting after the base' });
    const code = async () => {
      const res = await svc.api('/v1/status');
      const body = (await res.json()) as { preparation?: unknown };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return Preparation.parse(body.preparation).stages.find((s) => s.name === 'code')!;
    };
    expect(await code()).toMatchObject({ state: 'running', percent: 0, eta_seconds: null });
    now += 20_000;
    tracker.onCodeLayer({ phase: 'layer', percent: 20, message: 'configuring: python3-numpy' }); // pace: 80 s
    expect(await code()).toMatchObject({ percent: 20, eta_seconds: 80 });
    expect((await code()).message).toMatch(/^installing the code interpreter's packages over the base: configuring: python3-numpy$/);
    const seen = [80];
    for (const p of [25, 30, 60, 80]) {
      now += 30_000; // slower than the pace so far: the time left only counts down
      tracker.onCodeLayer({ phase: p < 80 ? 'layer' : 'rootfs', percent: p, message: 'x' });
      seen.push((await code()).eta_seconds!);
    }
    expect(
      seen.every((v, i) => i === 0 || v <= seen[i - 1]!),
      seen.join(' '),
    ).toBe(true);
    const st = await runCli({ BOX_URL: svc.url, BOX_API_KEY: svc.key }, ['status']);
    expect(st.stdout).toMatch(/Code interpreter .*: 80% building the Debian root filesystem .*\((about .* left|taking longer.*)\)/);
    tracker.onCodeLayer({ phase: 'done', percent: 100, message: 'guest image ready' });
    expect(await code()).toMatchObject({ state: 'ready', percent: 100, eta_seconds: null });
    tracker.onCodeLayer({ phase: 'failed', error: new Error('apt-get install failed\nlog') });
    expect(await code()).toMatchObject({ state: 'failed', error: 'apt-get install failed' });
  });
});
