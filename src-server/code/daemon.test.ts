/**
 * The in-guest code daemon (resources/guest/code) run on this machine with Debian's
 * Python (ipykernel, numpy, pandas, matplotlib: scripts/debian-packages.txt) and Node:
 * the kernels' behaviour without a VM. code.vm.test.ts runs the same daemon in a box.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_1_3_2 } from './test-support/chart.js';
import { mainResult as main, openDaemon, type DaemonEv as Ev, type DaemonExecution as Execution } from './test-support/daemon.js';

let daemon: Awaited<ReturnType<typeof openDaemon>>;
const request = (body: Record<string, unknown>): Promise<Ev[]> => daemon.request(body).events;
const run = (body: Record<string, unknown>) => daemon.run(body);

const CHART = 'application/vnd.box.chart+json';

beforeAll(async () => {
  daemon = await openDaemon();
}, 60_000);
afterAll(() => daemon?.close());

describe('the code daemon, Python (ipykernel)', () => {
  it("a warm-pool clone's touch starts no kernel, and with one running leaves no trace (no count, no `_`, no events)", async () => {
    const idle = await request({ op: 'touch' });
    expect(idle.map((e) => e.type)).toEqual(['reply']);
    const listed = (await request({ op: 'list' })).at(-1)!.contexts as unknown[];
    expect(listed).toEqual([]); // no context was started by it
    const a = await run({ code: '40 + 2' });
    const touched = await request({ op: 'touch' });
    expect(touched.map((e) => e.type)).toEqual(['reply']);
    const b = await run({ code: '_' });
    expect(main(b)?.['text/plain']).toBe('42'); // the last result is still the client's
    expect(b.execution_count).toBe(a.execution_count! + 1);
  }, 60_000);

  it('keeps state, streams stdout before the result, counts executions', async () => {
    const a = await run({ code: 'x = 6 * 7\nprint("hello")' });
    expect(a.stdout).toBe('hello\n');
    const ev = await request({ op: 'run', code: 'print("first"); x' });
    expect(ev.map((e) => e.type)).toEqual(['stdout', 'result', 'end']);
    const b = ev.at(-1)!.execution as Execution;
    expect(main(b)?.['text/plain']).toBe('42');
    expect(b.execution_count).toBe(a.execution_count! + 1);
  }, 60_000);

  it('gives a PNG for plt.show() and for a figure left as the value, HTML for a DataFrame', async () => {
    const shown = await run({ code: 'import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()' });
    const png = Buffer.from(String(shown.results[0]!['image/png']), 'base64');
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const fig = await run({ code: 'fig, ax = plt.subplots()\nax.bar([1, 2], [3, 4])\nfig' });
    expect(main(fig)?.['image/png']).toBeTruthy();
    // beside the picture, what it plots (E2B's chart shape)
    expect(shown.results[0]![CHART]).toMatchObject(LINE_1_3_2);
    expect(main(fig)?.[CHART]).toMatchObject({ type: 'bar', elements: [{ value: 3 }, { value: 4 }] });
    const charts = await run({
      code: [
        'fig, (a, b) = plt.subplots(1, 2)',
        'a.pie([1, 3], labels=["x", "y"]); a.set_title("share")',
        'b.scatter([1, 2], [5, 6], label="pts"); b.set_xlabel("t")',
        'fig.suptitle("both")',
        'fig',
      ].join('\n'),
    });
    expect(main(charts)?.[CHART]).toMatchObject({
      type: 'superchart',
      title: 'both',
      elements: [
        {
          type: 'pie',
          title: 'share',
          elements: [
            { label: 'x', angle: 90 },
            { label: 'y', angle: 270 },
          ],
        },
        {
          type: 'scatter',
          x_label: 't',
          elements: [
            {
              label: 'pts',
              points: [
                [1, 5],
                [2, 6],
              ],
            },
          ],
        },
      ],
    });
    const df = await run({ code: 'import pandas as pd\npd.DataFrame({"a": [1, 2], "b": [3, 4]})' });
    expect(String(main(df)?.['text/html'])).toContain('<table');
  }, 60_000);

  it('reports an error with its traceback and the next cell still works; a timeout interrupts', async () => {
    const e = await run({ code: 'def f():\n    return 1 / 0\nf()' });
    expect(e.error?.name).toBe('ZeroDivisionError');
    expect(e.error?.traceback).toContain('return 1 / 0');
    expect(e.error?.traceback).not.toContain('\x1b[');
    const t = await run({ code: 'import time\ntime.sleep(30)', timeout: 1 });
    expect(t.error?.name).toBe('KeyboardInterrupt');
    expect(main(await run({ code: 'x + 1' }))?.['text/plain']).toBe('43');
  }, 60_000);

  it('cuts output over the cap with a marker; a dead kernel is reported and restarts', async () => {
    const big = await run({ code: 'print("y" * (2 * 1024 * 1024))' });
    expect(big.truncated).toBe(true);
    expect(big.stdout).toContain('[output truncated');
    expect(big.stdout.length).toBeLessThan(1024 * 1024 + 200);
    const died = await run({ code: 'import os\nos._exit(1)' });
    expect(died.error?.name).toBe('KernelDied');
    // a new kernel: the variables are gone, the default context's imports are back
    const again = await run({ code: '("x" in dir(), "np" in dir())' });
    expect(again.error, JSON.stringify(again)).toBeNull();
    expect(main(again)?.['text/plain']).toBe('(False, True)');
  }, 90_000);
});

describe('the code daemon, JavaScript and bash', () => {
  it('runs JavaScript with state, values, errors and interrupts', async () => {
    const ctx = (await request({ op: 'create', language: 'javascript' })).at(-1)!.context as { id: string };
    const a = await run({ context_id: ctx.id, code: 'let n = 40; console.log("hi")' });
    expect(a.stdout).toBe('hi\n');
    expect(main(await run({ context_id: ctx.id, code: 'n + 2' }))?.['text/plain']).toBe('42');
    expect((await run({ context_id: ctx.id, code: 'throw new TypeError("bad")' })).error).toMatchObject({ name: 'TypeError', value: 'bad' });
    expect((await run({ context_id: ctx.id, code: 'while (true) {}', timeout: 1 })).error?.name).toBe('KeyboardInterrupt');
    expect(main(await run({ context_id: ctx.id, code: 'await Promise.resolve(n)' }))?.['text/plain']).toBe('40');
  }, 60_000);

  it('runs bash with state; a timeout interrupts and the shell stays', async () => {
    const ctx = (await request({ op: 'create', language: 'bash' })).at(-1)!.context as { id: string };
    await run({ context_id: ctx.id, code: 'X=41; cd /tmp' });
    const t = await run({ context_id: ctx.id, code: 'sleep 30; echo late', timeout: 1 });
    expect(t.error?.name).toBe('KeyboardInterrupt');
    expect(t.stdout).not.toContain('late');
    expect((await run({ context_id: ctx.id, code: 'echo $((X + 1)) $PWD' })).stdout).toBe('42 /tmp\n');
  }, 60_000);

  it('a daemon started after one stopped says, on its first run, that every context was reset', async () => {
    let home: string | undefined;
    const firstRun = async (): Promise<Execution> => {
      const d = await openDaemon(home);
      home = d.home;
      try {
        return await d.run({ language: 'bash', code: 'echo hi' });
      } finally {
        d.close();
      }
    };
    const fresh = await firstRun();
    expect(fresh.stderr).toBe('');
    expect(fresh.stdout).toBe('hi\n');
    const after = await firstRun(); // the first daemon was killed: this one follows it
    expect(after.stderr).toContain('every context was reset');
    expect(after.stdout).toBe('hi\n');
  }, 60_000);

  it("a cell that reads stdin, or runs a program that does, reads nothing: the next cell's request is not its input", async () => {
    // each kernel's requests come on a pipe of their own; a cell's stdin is /dev/null
    const py = await run({ code: 'import subprocess, sys\nprint(repr(sys.stdin.read()), subprocess.run(["cat"]).returncode)', timeout: 20 });
    expect(py.error, JSON.stringify(py)).toBeNull();
    expect(py.stdout).toBe("'' 0\n");
    expect(main(await run({ code: '6 * 7' }))?.['text/plain']).toBe('42');

    const js = (await request({ op: 'create', language: 'javascript' })).at(-1)!.context as { id: string };
    const jsRead = await run({
      context_id: js.id,
      code: 'const cp = require("child_process"); [require("fs").readFileSync(0, "utf8"), String(cp.execSync("cat", { stdio: ["inherit", "pipe", "pipe"] }))]',
      timeout: 20,
    });
    expect(jsRead.error, JSON.stringify(jsRead)).toBeNull();
    expect(main(jsRead)?.['text/plain']).toBe("[ '', '' ]");
    expect(main(await run({ context_id: js.id, code: '6 * 7' }))?.['text/plain']).toBe('42');

    const sh = (await request({ op: 'create', language: 'bash' })).at(-1)!.context as { id: string };
    const shRead = await run({ context_id: sh.id, code: 'read -r line; echo "read=$? [$line]"; cat; echo done', timeout: 20 });
    expect(shRead.error, JSON.stringify(shRead)).toBeNull();
    expect(shRead.stdout).toBe('read=1 []\ndone\n');
    expect((await run({ context_id: sh.id, code: 'echo next' })).stdout).toBe('next\n');
  }, 90_000);

  it('answers an unknown context as not_found', async () => {
    expect((await request({ op: 'run', context_id: 'ctx_nope', code: '1' })).at(-1)).toMatchObject({ type: 'fail', code: 'not_found' });
  });
});
