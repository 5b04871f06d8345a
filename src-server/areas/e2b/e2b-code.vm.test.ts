/**
 * The stock `@e2b/code-interpreter` SDK, unchanged, against the service with a real microVM:
 * pointed at it the way its users do (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY). One
 * sandbox carries every case (VM time is CI time); its template holds the warm Python
 * kernel, as E2B's `code-interpreter-v1` does.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, Sandbox, TimeoutError, type Execution, type ExecutionError, type OutputMessage, type Result } from '@e2b/code-interpreter';
import { pointE2BAt } from './test-support/e2b-env.js';
import { startTestService, templatesReady, type TestService } from '../../test-support/harness.js';
import { LINE_1_3_2 } from '../code/test-support/chart.js';

const VM = 600_000;
let svc: TestService;
let sbx: Sandbox;

beforeAll(async () => {
  process.env.BOX_CODE_WARM = '1'; // the template's warm kernel (vitest.config.ts turns it off)
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2bci-'), tuning: { prepareTemplates: true } });
  await templatesReady(svc); // built with its warm kernel before the first create asks for it
  pointE2BAt(svc);
  // the template is built (above); a create still restores a clone under TCG, past the SDK's 60 s default under load.
  // A sandbox lives 5 min by default (E2B's rule, kept): under CI load these cases take longer.
  sbx = await Sandbox.create({ requestTimeoutMs: VM, timeoutMs: 3_600_000, envs: { SBX_ENV: 'from the sandbox' } });
}, VM);
afterAll(async () => {
  await sbx?.kill().catch(() => {});
  await svc?.close();
}, VM);

// cells may start kernels (a new context, a restart): under TCG that is seconds, under load more
const slow = { requestTimeoutMs: 300_000, timeoutMs: 300_000 };

describe('@e2b/code-interpreter on a real box', () => {
  it(
    'keeps state across cells; streams stdout and stderr to callbacks as they happen; results to onResult',
    async () => {
      expect(sbx.sandboxId).toBeTruthy();
      await sbx.runCode('x = 1', slow);
      const two = await sbx.runCode('x += 1; x', slow);
      expect(two.text).toBe('2');
      expect(two.error).toBeUndefined();
      expect(two.results).toHaveLength(1);
      expect(two.results[0]!.isMainResult).toBe(true);

      const out: Array<{ at: number; m: OutputMessage }> = [];
      const errs: OutputMessage[] = [];
      const results: Result[] = [];
      const t0 = Date.now();
      const ex = await sbx.runCode('import sys, time\nprint("first", flush=True)\ntime.sleep(2)\nprint("oops", file=sys.stderr)\nprint("second")\nx * 21', {
        ...slow,
        onStdout: (m) => void out.push({ at: Date.now() - t0, m }),
        onStderr: (m) => void errs.push(m),
        onResult: (r) => void results.push(r),
      });
      expect(out.map((o) => o.m.line)).toEqual(['first\n', 'second\n']);
      expect(out[0]!.m.error).toBe(false);
      expect(out[1]!.at - out[0]!.at).toBeGreaterThan(1500); // the first line came before the sleep ended
      expect(errs.map((m) => [m.line, m.error])).toEqual([['oops\n', true]]);
      expect(results.map((r) => r.text)).toEqual(['42']);
      expect(ex.logs).toEqual({ stdout: ['first\n', 'second\n'], stderr: ['oops\n'] });
      expect(ex.text).toBe('42');
      expect(ex.executionCount).toBeGreaterThan(2);

      // a string result's text is its content, as E2B's server gives it (not its repr)
      const env = await sbx.runCode('import os; os.environ["E2B_CELL"]', { ...slow, envs: { E2B_CELL: 'per cell' } });
      expect(env.text).toBe('per cell');
    },
    VM,
  );

  it(
    'gives a chart as a valid PNG, a DataFrame as HTML',
    async () => {
      const chart = await sbx.runCode('import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title("t")\nplt.show()', slow);
      const img = chart.results.find((r) => r.png);
      expect(img).toBeDefined();
      expect(img!.formats()).toContain('png');
      const png = Buffer.from(img!.png!, 'base64');
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.readUInt32BE(16)).toBeGreaterThan(100); // IHDR width
      // E2B's result.chart: what the figure plots
      expect(img!.chart).toMatchObject({ ...LINE_1_3_2, title: 't' });
      const bars = await sbx.runCode('fig, ax = plt.subplots()\nax.bar(["a", "b"], [3, 5], label="n")\nfig', slow);
      expect(bars.results.find((r) => r.isMainResult)?.chart).toMatchObject({
        type: 'bar',
        elements: [
          { label: 'a', group: 'n', value: 3 },
          { label: 'b', group: 'n', value: 5 },
        ],
      });
      const df = await sbx.runCode('import pandas as pd\npd.DataFrame({"a": [1, 2], "b": [3, 4]})', slow);
      expect(df.results[0]!.html).toContain('<table');
      expect(df.text).toContain('a  b');
    },
    VM,
  );

  it(
    'reports an error as ExecutionError (name, value, traceback) and keeps going',
    async () => {
      const seen: ExecutionError[] = [];
      const e: Execution = await sbx.runCode('def f():\n    return 1 / 0\nf()', { ...slow, onError: (err) => void seen.push(err) });
      expect(e.error).toMatchObject({ name: 'ZeroDivisionError', value: 'division by zero' });
      expect(e.error!.traceback).toContain('return 1 / 0');
      expect(seen).toHaveLength(1);
      expect((await sbx.runCode('x', slow)).text).toBe('2');
    },
    VM,
  );

  it(
    'creates, lists, restarts and removes code contexts; a JavaScript context',
    async () => {
      const ctx = await sbx.createCodeContext({ language: 'python', cwd: '/tmp', ...slow });
      expect(ctx).toMatchObject({ language: 'python', cwd: '/tmp' });
      expect(ctx.id).toBeTruthy();
      await sbx.runCode('y = 5', { context: ctx, ...slow });
      expect((await sbx.runCode('import os; (y, os.getcwd())', { context: ctx, ...slow })).text).toBe("(5, '/tmp')");
      expect((await sbx.runCode('"y" in dir()', slow)).text).toBe('False'); // the default context is another kernel
      expect((await sbx.listCodeContexts()).map((c) => c.id)).toContain(ctx.id);

      await sbx.restartCodeContext(ctx);
      const gone = await sbx.runCode('y', { context: ctx, ...slow });
      expect(gone.error?.name).toBe('NameError');
      expect((await sbx.listCodeContexts()).map((c) => c.id)).toContain(ctx.id);

      await sbx.removeCodeContext(ctx.id);
      expect((await sbx.listCodeContexts()).map((c) => c.id)).not.toContain(ctx.id);
      await expect(sbx.runCode('1', { context: ctx, ...slow })).rejects.toBeInstanceOf(NotFoundError);
      await expect(sbx.restartCodeContext(ctx)).rejects.toBeInstanceOf(NotFoundError);

      const js = await sbx.createCodeContext({ language: 'js', ...slow });
      expect(js.language).toBe('javascript');
      await sbx.runCode('const n = 40; console.log("js", n)', { context: js, ...slow });
      expect((await sbx.runCode('n + 2', { context: js, ...slow })).text).toBe('42');
      expect((await sbx.runCode('[1, 2].map((v) => v * 2)', { language: 'javascript', ...slow })).text).toContain('2, 4');
      await sbx.removeCodeContext(js);
      // a language Box has no kernel for: the SDK surfaces the status (its message only in its diagnostics mode)
      await expect(sbx.runCode('1', { language: 'java', ...slow })).rejects.toThrow(/^400 Bad Request/);
    },
    VM,
  );
  it(
    "as E2B's template: sandbox envs in every kernel (R's too), per-run envs over them; python and javascript listed; /home/user",
    async () => {
      expect((await sbx.listCodeContexts()).map((c) => c.language)).toEqual(expect.arrayContaining(['python', 'javascript']));
      for (const [language, code] of [
        ['python', 'import os; os.getenv("SBX_ENV")'],
        ['javascript', 'process.env.SBX_ENV'],
        ['bash', 'echo $SBX_ENV'],
        ['r', 'Sys.getenv("SBX_ENV")'],
      ] as const) {
        const over = await sbx.runCode(code, { language, envs: { SBX_ENV: 'overridden' }, ...slow });
        const back = await sbx.runCode(code, { language, ...slow });
        // R's values are display data, as IRkernel's are: E2B's R tests read results[0]
        const text = (x: Execution) => (language === 'bash' ? x.logs.stdout.join('').trim() : language === 'r' ? x.results[0]?.text : x.text);
        const as = (v: string) => (language === 'r' ? `[1] "${v}"` : v);
        expect([language, text(over), text(back)]).toEqual([language, as('overridden'), as('from the sandbox')]);
      }
      expect((await sbx.runCode('getwd()', { language: 'r', ...slow })).results[0]?.text).toBe('[1] "/home/user"');
      expect((await sbx.runCode('process.cwd()', { language: 'js', ...slow })).text).toBe('/home/user');
      expect((await sbx.runCode('pwd', { language: 'bash', ...slow })).logs.stdout).toEqual(['/home/user\n']);
      const ctx = await sbx.createCodeContext({ ...slow });
      expect(ctx.cwd).toBe('/home/user');
      await sbx.removeCodeContext(ctx);
    },
    VM,
  );

  it(
    'JavaScript takes ES module imports and top-level await; TypeScript runs; the next run works after a client-side timeout',
    async () => {
      const esm = await sbx.runCode("\n  import { readFileSync } from 'fs'\n  console.log(typeof readFileSync)\n", { language: 'js', ...slow });
      expect(esm.logs.stdout).toEqual(['function\n']);
      expect((await sbx.runCode("await Promise.resolve('Hello World!')", { language: 'js', ...slow })).text).toBe('Hello World!');
      const ts = await sbx.runCode('const message: string = "Hello World!"; console.log(message)', { language: 'ts', ...slow });
      expect([ts.logs.stdout, ts.error]).toEqual([['Hello World!\n'], undefined]);
      await expect(sbx.runCode('import time; time.sleep(300)', { timeoutMs: 3_000 })).rejects.toThrow();
      expect((await sbx.runCode('1 + 1', slow)).text).toBe('2');
    },
    VM,
  );

  it(
    "charts in E2B's shapes; plt.savefig without show() gives the image; a DataFrame as result.data",
    async () => {
      const box = await sbx.runCode(
        'import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.set_title("S")\nax.boxplot([[85, 90, 78, 92, 88], [95, 89, 76, 91, 84, 87]], labels=["A", "B"], patch_artist=True)\nplt.show()',
        slow,
      );
      expect(box.results[0]!.chart).toMatchObject({
        type: 'box_and_whisker',
        title: 'S',
        elements: [
          { label: 'A', min: 78, first_quartile: 85, median: 88, third_quartile: 90, max: 92, outliers: [] },
          { label: 'B', min: 84, first_quartile: 84.75, median: 88, third_quartile: 90.5, max: 95, outliers: [76] },
        ],
      });
      const pie = await sbx.runCode('plt.pie([90, 10], labels=["No", "Yes"], startangle=90)\nplt.show()', slow);
      expect(pie.results[0]!.chart).toMatchObject({
        type: 'pie',
        title: null,
        elements: [
          { label: 'No', angle: 324 },
          { label: 'Yes', angle: 36 },
        ],
      });
      const saved = await sbx.runCode('plt.plot([1, 2]); plt.yscale("log"); plt.savefig("chart.png")', slow);
      expect(saved.results).toHaveLength(1);
      expect(saved.results[0]!.png).toBeTruthy();
      expect(saved.results[0]!.chart).toMatchObject({ type: 'line', y_scale: 'log' });
      const df = await sbx.runCode('import pandas as pd\npd.DataFrame({"a": [1, 2, 3]})', slow);
      expect(df.results[0]!.data).toEqual({ a: [1, 2, 3] });
    },
    VM,
  );

  it(
    "a silent cell longer than the SDK's request timeout runs to its end (timeoutMs covers the cell, as on E2B)",
    async () => {
      const quiet = await sbx.runCode('import time\ntime.sleep(4)\n7', { requestTimeoutMs: 2_000, timeoutMs: 120_000 });
      expect(quiet.text).toBe('7');
    },
    VM,
  );

  it(
    'a sandbox killed by its timeout during a cell: the SDK raises its TimeoutError',
    async () => {
      await sbx.setTimeout(3_000);
      const err = await sbx.runCode('import time\ntime.sleep(120)', slow).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TimeoutError);
      expect(String((err as Error).message)).toMatch(/killed while the request was in progress|sandbox timeout/);
      expect(await sbx.isRunning()).toBe(false);
    },
    VM,
  );
});
