import OpenAI from 'openai';
import { runCli } from '../../../../src-cli/test-support/cli.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../../test-support/harness.js';

// The gateway half of inference from inside a box, with the egress proxy simulated: the
// proxy sends `internalAuthFor(box)` over loopback (box/box-credentials.ts). The real-VM
// test through the real proxy is box-gateway.vm.test.ts.
let svc: TestService;
let boxA: string;
let boxB: string;
const creds = () => svc.ctx.services.boxCredentials;
const asBox = (boxId: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(`${svc.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...creds().internalAuthFor(boxId), ...(init.headers as Record<string, string>) },
    body: JSON.stringify(init.json ?? { model: 'box/echo', input: 'one two three' }),
  });

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  const app = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'gw', mint_if_missing: true } })).json()).id;
  const mk = async (name: string, budget?: number) =>
    (
      await (
        await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app, name, ...(budget === undefined ? {} : { inference_budget_tokens: budget }) } })
      ).json()
    ).box_id as string;
  boxA = await mk('gw-a', 10);
  boxB = await mk('gw-b');
});
afterAll(() => svc?.close());

describe('box principal', () => {
  it("the proxy's internal credential is the principal of that box, for inference only", async () => {
    const res = await asBox(boxB);
    expect(res.status).toBe(200);
    expect(JSON.stringify((await res.json()).output)).toContain('"text":"Echo: one two three"');
    const bx = await fetch(`${svc.url}/v1/boxes`, { headers: creds().internalAuthFor(boxB) });
    expect(bx.status).toBe(401);
  });

  it("a box's token is worthless as an API key, from the host or another box", async () => {
    const direct = new OpenAI({ apiKey: creds().tokenFor(boxB), baseURL: `${svc.url}/v1`, maxRetries: 0 });
    await expect(direct.responses.create({ model: 'box/echo', input: 'x' })).rejects.toMatchObject({ status: 401 });
    // Box A's proxy credential relabelled as box B (a forged X-Box-Id) is refused, not downgraded.
    const forged = await asBox(boxA, { headers: { 'x-box-id': boxB } });
    expect(forged.status).toBe(401);
    expect((await errorOf(forged)).code).toBe('invalid_api_key');
    const token = await asBox(boxA, { headers: { 'x-box-gateway-auth': creds().tokenFor(boxA) } });
    expect(token.status).toBe(401);
  });

  it('usage is attributed per box, and a spent budget is refused with 429 inference_budget_exhausted', async () => {
    expect((await asBox(boxA)).status).toBe(200); // 3 in + 5 out ("Echo: one two three") = 8 of 10
    expect((await asBox(boxA)).status).toBe(200); // 16: over, the check is before each request
    const refused = await asBox(boxA);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(await errorOf(refused)).toMatchObject({ type: 'rate_limit_error', code: 'inference_budget_exhausted', param: 'inference_budget_tokens' });
    expect(await (await svc.api(`/v1/boxes/${boxA}/inference-budget`)).json()).toEqual({
      box_id: boxA,
      inference_budget_tokens: 10,
      used_tokens: 16,
      remaining_tokens: 0,
    });
    const usage = await (await svc.api('/v1/usage/tokens')).json();
    const a = usage.boxes.find((b: { box_id: string }) => b.box_id === boxA);
    expect(a).toMatchObject({ name: 'gw-a', inference_budget_tokens: 10, requests: 2, input_tokens: 6, output_tokens: 10 });
    expect(a.usd_nanos).toBeGreaterThan(0);
    expect(usage.boxes.find((b: { box_id: string }) => b.box_id === boxB)).toMatchObject({ requests: 1, inference_budget_tokens: null });
    // Raising the budget lets the box continue; null means unlimited.
    const put = await svc.api(`/v1/boxes/${boxA}/inference-budget`, { method: 'PUT', json: { inference_budget_tokens: null } });
    expect((await put.json()).inference_budget_tokens).toBeNull();
    expect((await asBox(boxA)).status).toBe(200);
    const bad = await svc.api(`/v1/boxes/${boxA}/inference-budget`, { method: 'PUT', json: { inference_budget_tokens: -1 } });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).param).toBe('inference_budget_tokens');
  });

  it('the CLI sets a budget at create (--inference-budget) and shows and changes it with `boxes budget`', async () => {
    const env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
    const made = await runCli(env, ['boxes', 'create', 'gw-cli', '--app', 'gw', '--inference-budget', '8', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).box_id as string;
    expect(JSON.parse(made.stdout).inference_budget_tokens).toBe(8);
    expect((await asBox(id)).status).toBe(200); // 8 tokens: spent
    const shown = await runCli(env, ['boxes', 'budget', 'gw-cli']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/inference_budget_tokens:\s+8\n/);
    expect(shown.stdout).toMatch(/used_tokens:\s+8\n/);
    expect(shown.stdout).toMatch(/remaining_tokens:\s+0\n/);
    expect((await asBox(id)).status).toBe(429);
    const raised = await runCli(env, ['boxes', 'budget', 'gw-cli', 'unlimited', '--json']);
    expect(JSON.parse(raised.stdout)).toEqual({ box_id: id, inference_budget_tokens: null, used_tokens: 8, remaining_tokens: null });
    expect((await asBox(id)).status).toBe(200);
    const bad = await runCli(env, ['boxes', 'create', 'gw-bad', '--inference-budget', '-3']);
    expect(bad.code).toBe(2);
    expect((await runCli(env, ['boxes', 'get', 'gw-cli'])).stdout).toMatch(/inference_budget_tokens:\s+unlimited/);
  }, 120_000);
});
