/**
 * The code interpreter in a real box (QEMU; TCG here), through the HTTP API. One box is
 * shared by the cases (VM time is CI time); each case states what it relies on.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeExecution } from '@box/contract/code';
import { LINE_1_3_2 } from './test-support/chart.js';
import { runCli } from '../../../src-cli/test-support/cli.js';
import { readExecStream } from '../../test-support/exec-stream.js';
import { startTestService, templatesReady, type TestService } from '../../test-support/harness.js';

const VM_TIMEOUT = 600_000;
let svc: TestService;
let boxId: string;

const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};
const run = async (body: Record<string, unknown>) => (await post(`/v1/boxes/${boxId}/code/run`, body)) as CodeExecution;
const text = (x: CodeExecution) => x.results.find((r) => r.is_main_result)?.['text/plain'];
/**
 * How the service reaches the box's daemon: `direct` when no connector runs in the box (the
 * agent's own connection to the daemon's port, EXEC connect), `connector` when bash's
 * /dev/tcp connector does (the daemon had to be started by it).
 */
const link = async (id: string) => {
  const res = await svc.api(`/v1/boxes/${id}/exec`, {
    method: 'POST',
    json: { command: 'pgrep -f "dev/[t]cp/127.0.0.1/49999" >/dev/null && echo connector || echo direct' },
  });
  return readExecStream(await res.text()).stdout.trim();
};

beforeAll(async () => {
  process.env.BOX_CODE_WARM = '1'; // the default template's warm kernel (vitest.config.ts turns it off)
  process.env.BOX_WARM_POOL = '1';
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxcode-'), tuning: { prepareTemplates: true } });
  await templatesReady(svc); // built with its warm kernel before the first create asks for it
  // the box is a warm-pool clone (vitest.config.ts turns the pool off), as a user's is: the
  // pool ran a first cell's path in it (the daemon's `touch`), which must leave no trace
  for (let i = 0; i < 600; i++) {
    const tpls = (await (await svc.api('/v1/templates')).json()) as { data: Array<{ warm_clones?: number }> };
    if (tpls.data.some((t) => (t.warm_clones ?? 0) > 0)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const appId = (await post('/v1/apps/find', { name: 'code', mint_if_missing: true })).id;
  boxId = (await post('/v1/boxes', { app_id: appId, name: 'code1' })).box_id;
}, VM_TIMEOUT);
afterAll(async () => {
  if (boxId) await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST' });
  await svc.close();
}, VM_TIMEOUT);

describe('the code interpreter in a real box', () => {
  it(
    'keeps Python state across cells in the default context',
    async () => {
      // the template's kernel: the data stack already imported, no cell counted yet
      const warm = await run({ code: '"np" in dir() and "pd" in dir() and "plt" in dir()' });
      expect(text(warm)).toBe('True');
      expect(warm.execution_count).toBe(1);
      // the template's daemon listened from the clone's first instant: the agent joined it, no connector
      expect(await link(boxId)).toBe('direct');
      const a = await run({ code: 'x = 6 * 7\nprint("set", x)' });
      expect(a.error).toBeNull();
      expect(a.stdout).toBe('set 42\n');
      expect(a.language).toBe('python');
      const b = await run({ code: 'x' });
      expect(text(b)).toBe('42');
      expect(b.context_id).toBe(a.context_id);
      expect(b.execution_count).toBe((a.execution_count ?? 0) + 1);
      // the box's environment reached the template's kernel (started before the box was)
      expect(text(await run({ code: 'import os\nos.environ.get("OPENAI_BASE_URL", "")[-3:]' }))).toBe("'/v1'");
      const list = await (await svc.api(`/v1/boxes/${boxId}/code/contexts`)).json();
      expect(list.data.map((c: { id: string }) => c.id)).toContain(a.context_id);
    },
    VM_TIMEOUT,
  );

  it(
    'gives a valid PNG for plt.show() and for a figure left as the value, HTML for a DataFrame',
    async () => {
      const shown = await run({ code: 'plt.plot([1, 3, 2])\nplt.show()' });
      const png = Buffer.from(String(shown.results.find((r) => r['image/png'])?.['image/png']), 'base64');
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.readUInt32BE(16)).toBeGreaterThan(100); // IHDR width
      // beside the picture, what it plots
      expect(shown.results.find((r) => r['image/png'])?.['application/vnd.box.chart+json']).toMatchObject(LINE_1_3_2);
      const fig = await run({ code: 'fig, ax = plt.subplots()\nax.bar([1, 2], [3, 4])\nfig' });
      expect(fig.results.find((r) => r.is_main_result)?.['image/png']).toBeTruthy();
      const df = await run({ code: 'pd.DataFrame({"a": [1, 2], "b": [3, 4]})' });
      expect(df.results.find((r) => r.is_main_result)?.['text/html']).toContain('<table');
    },
    VM_TIMEOUT,
  );

  it(
    'reports an error with its traceback, then the next cell works; a timeout interrupts and the context stays',
    async () => {
      const e = await run({ code: 'def f():\n    return 1 / 0\nf()' });
      expect(e.error).toMatchObject({ name: 'ZeroDivisionError', value: 'division by zero' });
      expect(e.error?.traceback).toContain('return 1 / 0');
      expect(text(await run({ code: 'x + 1' }))).toBe('43');
      const t0 = Date.now();
      const t = await run({ code: 'import time\ntime.sleep(60)', timeout: 2 });
      expect(t.error?.name).toBe('KeyboardInterrupt');
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(text(await run({ code: 'x' }))).toBe('42');
    },
    VM_TIMEOUT,
  );

  it(
    'streams: the first line arrives before a later sleep ends, then the end event',
    async () => {
      const res = await svc.api(`/v1/boxes/${boxId}/code/run?stream=1`, {
        method: 'POST',
        json: { code: 'import time\nprint("first", flush=True)\ntime.sleep(4)\nprint("second")\n7' },
      });
      expect(res.headers.get('content-type')).toContain('application/x-ndjson');
      const seen: { type: string; at: number; data?: string }[] = [];
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          seen.push({ ...JSON.parse(buf.slice(0, nl)), at: Date.now() });
          buf = buf.slice(nl + 1);
        }
      }
      expect(seen.map((e) => e.type)).toEqual(['stdout', 'stdout', 'result', 'end']);
      expect(seen[0]!.data).toBe('first\n');
      expect(seen[3]!.at - seen[0]!.at).toBeGreaterThan(3000);
    },
    VM_TIMEOUT,
  );

  it(
    'runs JavaScript (Node) in its own context with state',
    async () => {
      const ctx = await post(`/v1/boxes/${boxId}/code/contexts`, { language: 'javascript' });
      expect(ctx).toMatchObject({ language: 'javascript', box_id: boxId, status: 'idle' });
      const a = await run({ context_id: ctx.id, code: 'const n = 40; console.log("js", n)' });
      expect(a.stdout).toBe('js 40\n');
      expect(text(await run({ context_id: ctx.id, code: 'n + 2' }))).toBe('42');
      // a cell's stdin is empty: reading it ends at once, it never takes the next request
      const read = await run({ context_id: ctx.id, code: 'require("fs").readFileSync(0, "utf8").length', timeout: 30 });
      expect(read.error).toBeNull();
      expect(text(read)).toBe('0');
      expect((await run({ language: 'javascript', code: 'typeof n' })).context_id).not.toBe(ctx.id);
      expect(await (await svc.api(`/v1/boxes/${boxId}/code/contexts/${ctx.id}`, { method: 'DELETE' })).json()).toEqual({ id: ctx.id, deleted: true });
    },
    VM_TIMEOUT,
  );

  it(
    'box code runs stdin or a file in the box from the CLI (python, javascript, r): output, results, exit 1 on an error',
    async () => {
      const env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
      const r = await runCli(env, ['code', 'code1', '-'], { input: 'print("from the cli")\nx * 2' });
      expect(r.stdout).toBe('from the cli\n84\n');
      expect(r.code).toBe(0);
      const js = await runCli(env, ['code', 'code1', '-l', 'javascript'], { input: '[1, 2, 3].map((v) => v * 2)' });
      expect(js.stdout).toContain('[ 2, 4, 6 ]');
      // R from the image's code layer: its value as R prints it, its plot a PNG result
      const rr = await runCli(env, ['code', 'code1', '-l', 'r'], { input: 'cat("R", R.version$major, "\\n")\nmean(c(1, 2, 6))\nplot(1:3)' });
      expect([rr.code, rr.stdout]).toEqual([0, expect.stringMatching(/^R 4 \n\[1\] 3\n[\s\S]*image\/png/)]);
      const bad = await runCli(env, ['code', 'code1'], { input: 'raise ValueError("nope")' });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('ValueError: nope');
    },
    VM_TIMEOUT,
  );

  it(
    'keeps the kernel across sleep and wake, and a fork carries a copy of it that diverges',
    async () => {
      const before = await run({ code: 'x' });
      expect((await post(`/v1/boxes/${boxId}/sleep`)).status).toBe('sleeping');
      const after = await run({ code: 'x' }); // wakes the box
      expect(text(after)).toBe('42');
      expect(after.execution_count).toBe(before.execution_count! + 1);
      expect(await link(boxId)).toBe('direct'); // the connection made again after the wake

      const fork = await post(`/v1/boxes/${boxId}/fork`, { name: 'code1-fork' });
      const kid = fork.boxes[0].box_id as string;
      try {
        const inKid = (await post(`/v1/boxes/${kid}/code/run`, { code: 'x' })) as CodeExecution;
        expect(text(inKid)).toBe('42');
        expect(await link(kid)).toBe('direct'); // the child's own connection to its copy of the daemon
        await post(`/v1/boxes/${kid}/code/run`, { code: 'x = 1' });
        expect(text((await post(`/v1/boxes/${kid}/code/run`, { code: 'x' })) as CodeExecution)).toBe('1');
        expect(text(await run({ code: 'x' }))).toBe('42');
      } finally {
        await svc.api(`/v1/boxes/${kid}/terminate`, { method: 'POST' });
      }
    },
    VM_TIMEOUT,
  );

  it(
    'a killed daemon: the run in flight fails saying so, the next run starts it again and says the contexts were reset',
    async () => {
      const ctx = await post(`/v1/boxes/${boxId}/code/contexts`, { language: 'python' });
      const inFlight = svc.api(`/v1/boxes/${boxId}/code/run`, { method: 'POST', json: { code: 'import time\ntime.sleep(60)' } });
      await new Promise((r) => setTimeout(r, 1000));
      const kill = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command: 'kill -9 $(cat /run/box-code/daemon.started)' } });
      expect(kill.status).toBe(200);
      await kill.text();
      const failed = await inFlight;
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect((await failed.json()).error.message).toContain('The code interpreter in the box stopped');
      const next = await run({ code: '("x" in dir(), "np" in dir())' });
      expect(next.error).toBeNull();
      expect(text(next)).toBe('(False, True)'); // fresh state, the default context's imports back
      expect(next.stderr).toContain('every context was reset');
      expect(await link(boxId)).toBe('connector'); // nothing listened: the connector started the daemon
      expect((await run({ code: '1' })).stderr).toBe('');
      const gone = await svc.api(`/v1/boxes/${boxId}/code/run`, { method: 'POST', json: { code: '1', context_id: ctx.id } });
      expect(gone.status).toBe(404);
      expect((await gone.json()).error.message).toContain('restarted');
    },
    VM_TIMEOUT,
  );

  it(
    'a cell longer than the auto-sleep delay keeps its box awake to its end (bench:hosted hung on this)',
    async () => {
      await post(`/v1/boxes/${boxId}/auto_sleep`, { automatic: true, min_seconds_before_sleep: 10 });
      try {
        // Idle for 10 s by the activity clock while it runs: the scheduler (1 s ticks) would sleep the box under it.
        const x = await run({ code: 'import time\ntime.sleep(14)\nprint("awake")', timeout: 60 });
        expect(x.error).toBeNull();
        expect(x.stdout).toBe('awake\n');
        const box = (await (await svc.api(`/v1/boxes/${boxId}`)).json()) as { status: string };
        expect(box.status).toBe('running');
      } finally {
        await post(`/v1/boxes/${boxId}/auto_sleep`, { automatic: false });
      }
    },
    VM_TIMEOUT,
  );

  it(
    'answers an unknown context with 404 naming context_id',
    async () => {
      const res = await svc.api(`/v1/boxes/${boxId}/code/run`, { method: 'POST', json: { code: '1', context_id: 'ctx_nope' } });
      expect(res.status).toBe(404);
      expect((await res.json()).error.param).toBe('context_id');
    },
    VM_TIMEOUT,
  );
});
