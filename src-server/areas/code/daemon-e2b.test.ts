/**
 * The in-guest code daemon on this machine (Debian's Python and Node, node-typescript):
 * what E2B's code interpreter does that its users rely on (issue 33) — its chart shapes,
 * a DataFrame as data, figures and images shown without show(), TypeScript, ES module
 * imports and top-level await, default contexts in the cwd asked for, a run cancelled, and
 * GET /health on the daemon's port. e2b-code.vm.test.ts runs the same through E2B's SDK in a box.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainResult, openDaemon } from './test-support/daemon.js';

const CHART = 'application/vnd.box.chart+json';
const DATA = 'application/vnd.box.data+json';
let d: Awaited<ReturnType<typeof openDaemon>>;
const chartOf = async (code: string) =>
  (await d.run({ code: `import matplotlib.pyplot as plt\n${code}\nplt.show()` })).results[0]?.[CHART] as Record<string, unknown>;

beforeAll(async () => {
  d = await openDaemon();
}, 60_000);
afterAll(() => d?.close());

describe("the code daemon as E2B's code interpreter", () => {
  it("gives E2B's chart shapes: box-and-whisker, exact pie angles, categorical and log scales, null titles", async () => {
    const box = await chartOf(
      [
        'data = {"A": [85, 90, 78, 92, 88], "B": [95, 89, 76, 91, 84, 87]}',
        'fig, ax = plt.subplots()',
        'ax.set_title("Scores"); ax.set_xlabel("Class"); ax.set_ylabel("Score [pt]")',
        'ax.boxplot(data.values(), labels=data.keys(), patch_artist=True)',
      ].join('\n'),
    );
    expect(box).toEqual({
      type: 'box_and_whisker',
      title: 'Scores',
      x_label: 'Class',
      y_label: 'Score [pt]',
      x_unit: null,
      y_unit: 'pt',
      elements: [
        { label: 'A', min: 78, first_quartile: 85, median: 88, third_quartile: 90, max: 92, outliers: [] },
        { label: 'B', min: 84, first_quartile: 84.75, median: 88, third_quartile: 90.5, max: 95, outliers: [76] },
      ],
    });
    const pie = await chartOf('plt.pie([90, 10], labels=["No", "Yes"], startangle=90)');
    expect(pie).toEqual({
      type: 'pie',
      title: null,
      elements: [
        { label: 'No', angle: 324, radius: 1 },
        { label: 'Yes', angle: 36, radius: 1 },
      ],
    });
    const cat = await chartOf('plt.plot([1, 2, 3], ["A", "B", "C"])');
    expect(cat).toMatchObject({ type: 'line', title: null, x_scale: 'linear', y_scale: 'categorical', elements: [{ label: 'Line 0' }] });
    const log = await chartOf('plt.plot([1, 2, 3], [10, 1000, 100000], label="e"); plt.yscale("log"); plt.ylabel("Y (log scale)")');
    expect(log).toMatchObject({ type: 'line', y_scale: 'log', y_unit: 'log scale', y_label: 'Y (log scale)', x_label: null, elements: [{ label: 'e' }] });
    const scatter = await chartOf('plt.scatter([1, 2], [3, 4], label="D1"); plt.scatter([5], [6], label="D2")');
    expect(scatter).toMatchObject({
      type: 'scatter',
      title: null,
      elements: [
        {
          label: 'D1',
          points: [
            [1, 3],
            [2, 4],
          ],
        },
        { label: 'D2', points: [[5, 6]] },
      ],
    });
    const unknown = await chartOf('fig, ax = plt.subplots(); ax.add_artist(plt.Circle((0, 0), 1)); plt.title("c")');
    expect(unknown).toEqual({ type: 'unknown', title: 'c', elements: [] });
  }, 60_000);

  it('shows a figure left open (plt.savefig without show), an image saved with PIL; a DataFrame as data', async () => {
    const saved = await d.run({ code: 'import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.savefig("/tmp/boxcode-saved.png")' });
    expect(saved.results).toHaveLength(1);
    expect(String(saved.results[0]!['image/png']).length).toBeGreaterThan(100);
    expect((await d.run({ code: 'len(plt.get_fignums())' })).results[0]!['text/plain']).toBe('0'); // closed once shown
    const pil = await d.run({ code: 'from PIL import Image\nImage.new("RGB", (4, 4)).save("/tmp/boxcode-pil.png")' });
    expect(pil.results[0]!['image/png']).toBeTruthy();
    const df = await d.run({ code: 'import pandas as pd\npd.DataFrame({"a": [1, 2], "t": pd.to_datetime(["2024-01-02", None]), "f": [0.5, float("nan")]})' });
    expect(mainResult(df)?.[DATA]).toEqual({ a: [1, 2], t: ['2024-01-02T00:00:00', 'NaT'], f: [0.5, null] });
  }, 60_000);

  it('runs TypeScript; JavaScript takes ES module imports and top-level await, its bindings kept', async () => {
    const ts = await d.run({ language: 'typescript', code: 'interface P { n: number }\nconst p: P = { n: 41 }\nconsole.log("ts")\np.n + 1' });
    expect([ts.stdout, mainResult(ts)?.['text/plain'], ts.error]).toEqual(['ts\n', '42', null]);
    const esm = await d.run({
      language: 'javascript',
      code: "  import { readFileSync } from 'fs'\n  import * as path from 'node:path'\n  console.log(typeof readFileSync, path.sep)",
    });
    expect([esm.stdout, esm.error]).toEqual(['function /\n', null]);
    const awaited = await d.run({ language: 'javascript', code: "const v = await Promise.resolve('Hello')\nawait Promise.resolve(v + '!')" });
    expect(mainResult(awaited)?.['text/plain']).toBe("'Hello!'");
    expect(mainResult(await d.run({ language: 'javascript', code: 'v + typeof readFileSync' }))?.['text/plain']).toBe("'Hellofunction'");
  }, 60_000);

  it('lists default contexts before they start; a default context starts, or moves before its first cell, in the cwd asked for', async () => {
    const listed = (await d.request({ op: 'list', defaults: ['python', 'bash'], cwd: '/tmp' }).events).at(-1)!.contexts as {
      id: string;
      language: string;
      cwd: string;
    }[];
    expect(listed.filter((c) => c.id === 'ctx_default_bash')).toEqual([expect.objectContaining({ language: 'bash', cwd: '/tmp' })]);
    const bash = await d.run({ context_id: 'ctx_default_bash', code: 'pwd', cwd: '/tmp' });
    expect(bash.stdout).toBe('/tmp\n');
    // python's default context ran cells already (above): it stays where it was
    expect(mainResult(await d.run({ code: 'import os; os.getcwd()', cwd: '/tmp' }))?.['text/plain']).not.toBe("'/tmp'");
  }, 60_000);

  it('gives a line written in pieces as one line (`!pwd`); a partial line still goes out', async () => {
    const events = await d.request({
      op: 'run',
      timeout: 60,
      code: 'import sys, time\nsys.stdout.write("a"); sys.stdout.flush(); sys.stdout.write("b\\n"); sys.stdout.flush()\n!pwd\nprint("c", end="", flush=True); time.sleep(0.5); print("d")',
    }).events;
    expect(events.filter((e) => e.type === 'stdout').map((e) => e.data)).toEqual(['ab\n', expect.stringMatching(/^\/\S*\r\n$/), 'c', 'd\n']);
  }, 60_000);

  it('a cancelled run is interrupted and the context keeps working; GET /health answers on the port', async () => {
    const r = d.request({ op: 'run', timeout: 60, code: 'import time\ntime.sleep(30)' });
    await new Promise((ok) => setTimeout(ok, 500));
    await d.request({ op: 'cancel', run: r.rid }).events;
    const end = (await r.events).at(-1)!.execution as { error: { name: string } };
    expect(end.error.name).toBe('KeyboardInterrupt');
    expect(mainResult(await d.run({ code: '1 + 1' }))?.['text/plain']).toBe('2');
    const health = await new Promise<{ status?: number; body: string }>((ok, fail) =>
      http
        .get(`http://127.0.0.1:${d.port}/health`, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c)).on('end', () => ok({ status: res.statusCode, body }));
        })
        .on('error', fail),
    );
    expect(health).toEqual({ status: 200, body: '"OK"' });
  }, 60_000);
});
