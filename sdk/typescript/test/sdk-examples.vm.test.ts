/**
 * The README's two SDK examples (issue 26), exactly as written there, on real VMs: the
 * TypeScript one under Node with the packed @box-desktop/sdk installed in an empty folder,
 * the Python one with box-desktop installed offline into a venv of Debian's python3. One
 * service for both; each example makes two boxes (a box and its fork) and terminates them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installPythonSdk } from '../../../scripts/python-sdk.js';
import { startTestService, type TestService } from '../../../src-server/test-support/harness.js';
import { BoxClient, NotFoundError, type CodeEvent } from '../src/index.js';
import { packAndInstall, readmeExample } from './pack.js';

const VM_TIMEOUT = 600_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-sdk-examples-'));
let svc: TestService;
let app: string;
let python: string;

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxsdk-') });
  app = packAndInstall(tmp).app;
  python = installPythonSdk(tmp);
}, VM_TIMEOUT);
afterAll(async () => {
  for (const b of (await (await svc.api('/v1/boxes?limit=100')).json()).data ?? []) {
    if (b.status !== 'terminated') await svc.api(`/v1/boxes/${b.box_id}/terminate`, { method: 'POST' });
  }
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}, VM_TIMEOUT);

/** Runs a program the way a user would: the service found through BOX_URL and BOX_API_KEY. */
const run = (cmd: string, args: string[], cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(cmd, args, { cwd, env: { ...process.env, BOX_URL: svc.url, BOX_API_KEY: svc.key }, timeout: VM_TIMEOUT }, (e, stdout, stderr) =>
      resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
    ),
  );

const liveBoxes = async () =>
  ((await (await svc.api('/v1/boxes?limit=100')).json()).data as { name: string; status: string }[])
    .filter((b) => b.status !== 'terminated')
    .map((b) => b.name);

it(
  'the TypeScript example runs as written (Node, the packed SDK)',
  async () => {
    fs.writeFileSync(path.join(app, 'example.mjs'), readmeExample('ts'));
    const r = await run(process.execPath, ['example.mjs'], app);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n2\n3\nhi\n42\n');
    expect(await liveBoxes()).toEqual([]);
  },
  VM_TIMEOUT,
);

it(
  'the Python example runs as written (Debian python3, the installed box-desktop)',
  async () => {
    fs.writeFileSync(path.join(tmp, 'example.py'), readmeExample('py'));
    const r = await run(python, ['example.py'], tmp);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n2\n3\n');
    expect(await liveBoxes()).toEqual([]);
  },
  VM_TIMEOUT,
);

it(
  'the code interpreter through both SDKs: streamed events, contexts keep state, errors with their traceback',
  async () => {
    const client = new BoxClient({ url: svc.url, apiKey: svc.key, env: {} });
    const box = await client.boxes.create({ name: 'sdk-code' });
    const events: CodeEvent[] = [];
    for await (const ev of box.runCodeStream('print("a")\n6 * 7')) events.push(ev);
    expect(events.map((e) => e.type)).toEqual(['stdout', 'result', 'end']);
    expect(events[0]).toEqual({ type: 'stdout', data: 'a\n' });
    const end = events.at(-1) as Extract<CodeEvent, { type: 'end' }>;
    expect(end.execution.text).toBe('42');
    const ctx = await box.code.createContext({ language: 'python' });
    await box.runCode('x = 5', { context: ctx });
    expect((await box.runCode('x * 2', { context: ctx })).text).toBe('10');
    expect((await box.code.listContexts()).map((c) => c.id)).toContain(ctx.id);
    const err = await box.runCode('x / 0', { context: ctx });
    expect(err.error).toMatchObject({ name: 'ZeroDivisionError', traceback: expect.stringContaining('ZeroDivisionError') });
    await box.code.deleteContext(ctx); // one kernel at a time besides the default one: a 512 MiB box under TCG
    const gone = await box.runCode('1', { context: ctx.id }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect((gone as NotFoundError).param).toBe('context_id');

    const py = [
      'import os',
      'from box_desktop import Client, NotFoundError',
      'box = Client().boxes.get("sdk-code")',
      'events = list(box.run_code_stream("print(1)\\n2 + 3"))',
      'assert [e["type"] for e in events] == ["stdout", "result", "end"], events',
      'assert events[-1]["execution"].text == "5"',
      'ctx = box.code.create_context(language="python")',
      'box.run_code("y = 7", context=ctx)',
      'assert box.run_code("y * 6", context=ctx["id"]).text == "42"',
      'assert box.run_code("1/0", context=ctx).error["name"] == "ZeroDivisionError"',
      'box.code.delete_context(ctx)',
      'try:',
      '    box.run_code("1", context=ctx)',
      '    raise SystemExit("a deleted context ran code")',
      'except NotFoundError as e:',
      '    assert e.param == "context_id"',
      'print("ok")',
    ].join('\n');
    fs.writeFileSync(path.join(tmp, 'code.py'), py);
    const r = await run(python, ['code.py'], tmp);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok\n');
    await box.terminate();
  },
  VM_TIMEOUT,
);
