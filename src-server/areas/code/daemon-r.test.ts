/**
 * R contexts of the in-guest code daemon on this machine (Debian's r-base-core and
 * r-cran-irkernel, as in the image's code layer): values as IRkernel shows them (E2B's R
 * kernel: `[1] "a"`, display data, a data frame also as HTML), plots as PNG, errors as
 * IRkernel names them, per-run env, interrupts, and the working directory asked for.
 * e2b-code.vm.test.ts runs R through E2B's SDK in a box.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDaemon } from './test-support/daemon.js';

let d: Awaited<ReturnType<typeof openDaemon>>;
let ctx: string;
const r = (code: string, more: Record<string, unknown> = {}) => d.run({ context_id: ctx, code, ...more });

beforeAll(async () => {
  d = await openDaemon();
  ctx = ((await d.request({ op: 'create', language: 'r', cwd: '/tmp' }).events).at(-1)!.context as { id: string }).id;
}, 60_000);
afterAll(() => d?.close());

describe('R contexts of the code daemon', () => {
  it("keeps state; a value is IRkernel's display data: its text as R prints it, with repr's richer forms", async () => {
    const a = await r('x <- 40\ncat("hi\\n")\nmessage("to stderr")\nx + 2');
    expect(a.stdout).toBe('hi\n');
    expect(a.stderr).toBe('to stderr\n');
    expect(a.error).toBeNull();
    expect(a.results).toEqual([expect.objectContaining({ 'text/plain': '[1] 42', is_main_result: false })]);
    expect(a.execution_count).toBe(1);
    const s = await r('getwd()');
    expect(s.results[0]).toMatchObject({ 'text/plain': '[1] "/tmp"', 'text/html': "'/tmp'" });
    const df = await r('data.frame(a = 1:2, b = c("x", "y"))');
    expect(df.results[0]!['text/plain']).toBe('  a b\n1 1 x\n2 2 y');
    expect(df.results[0]!['text/html']).toMatch(/^<table class="dataframe">[\s\S]*<td>x<\/td>/);
    // each visible top-level value is shown, an invisible one is not
    expect((await r('1\ninvisible(2)\n"three"')).results.map((x) => x['text/plain'])).toEqual(['[1] 1', '[1] "three"']);
  }, 60_000);

  it('gives a plot as a PNG of the repr.plot size', async () => {
    const p = await r('options(repr.plot.width = 4, repr.plot.height = 3, repr.plot.res = 100)\nplot(1:10)\nhist(c(1, 2, 2, 3))');
    const pngs = p.results.map((x) => Buffer.from(x['image/png'] as string, 'base64'));
    expect(pngs).toHaveLength(2);
    for (const png of pngs) {
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([400, 300]);
    }
    expect((await r('y <- 1')).results).toEqual([]);
  }, 60_000);

  it('reports errors as IRkernel names them, warnings on stderr, and the next cell still works', async () => {
    expect((await r('stop("boom")')).error).toMatchObject({ name: 'ERROR', value: 'Error: boom\n' });
    expect((await r('no_such_thing')).error).toMatchObject({ name: 'ERROR', value: "Error: object 'no_such_thing' not found\n" });
    expect((await r('f <- function( {')).error?.value).toMatch(/^Error: <text>:1:16: unexpected '\{'/);
    const w = await r('warning("careful"); 7');
    expect(w.stderr).toBe('Warning: careful\n');
    expect(w.results[0]!['text/plain']).toBe('[1] 7');
  }, 60_000);

  it("takes a run's env over the context's, and restores it after", async () => {
    expect((await r('Sys.getenv("FOO")', { env: { FOO: 'bar' } })).results[0]!['text/plain']).toBe('[1] "bar"');
    expect((await r('Sys.getenv("FOO", unset = "default")')).results[0]!['text/plain']).toBe('[1] "default"');
  }, 60_000);

  it('a timeout interrupts a busy loop and a sleep; the context keeps its state', async () => {
    expect((await r('while (TRUE) {}', { timeout: 1 })).error?.name).toBe('KeyboardInterrupt');
    expect((await r('Sys.sleep(30)', { timeout: 1 })).error?.name).toBe('KeyboardInterrupt');
    expect((await r('x')).results[0]!['text/plain']).toBe('[1] 40');
  }, 60_000);
});
