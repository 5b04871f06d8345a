/**
 * Box's MCP server against a real service with real VMs (one box and one fork of it):
 * the official SDK's client over both transports (stdio by spawning `box mcp` as a desktop
 * host does, streamable HTTP to /mcp), the refusals of /mcp, and one real MCP host, the
 * MCP Inspector's CLI mode, over both.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, terminateBoxes } from '../../test-support/harness.js';
import { LINE_1_3_2 } from '../code/test-support/chart.js';

const VM_TIMEOUT = 300_000;
const ROOT = path.resolve(import.meta.dirname, '../../..');
const BOX = path.join(ROOT, 'bin', 'box.mjs'); // the `box` command, as `npx box` runs it
const INSPECTOR = path.join(ROOT, 'node_modules', '.bin', 'mcp-inspector-cli');

let svc: TestService;
let http: Client;
let stdio: Client;

type Result = CallToolResult & { structuredContent: Record<string, any> };
const call = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: VM_TIMEOUT })) as Result;
  if (r.isError) throw new Error(`${name}: ${(r.content[0] as { text: string }).text}`);
  return r.structuredContent;
};

/** `box mcp` as a desktop host starts it: a child process speaking MCP on stdin/stdout. */
function boxMcp(apiKey: string) {
  return new StdioClientTransport({
    command: process.execPath,
    args: [BOX, 'mcp'],
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, BOX_URL: svc.url, BOX_API_KEY: apiKey, BOX_DATA_DIR: '/nonexistent-box-data-dir' },
    stderr: 'pipe',
  });
}

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxmcp-') });
  http = new Client({ name: 'mcp-vm-test-http', version: '1.0.0' });
  await http.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${svc.key}` } } }));
  stdio = new Client({ name: 'mcp-vm-test-stdio', version: '1.0.0' });
  await stdio.connect(boxMcp(svc.key));
}, VM_TIMEOUT);
afterAll(async () => {
  await http?.close();
  await stdio?.close();
  await terminateBoxes(svc);
  await svc?.close();
}, VM_TIMEOUT);

describe('MCP on real boxes', () => {
  it(
    'creates a box over /mcp and runs a command in it with progress notifications',
    async () => {
      const box = await call(http, 'box_create', { name: 'mcp-vm' });
      expect(box).toMatchObject({ name: 'mcp-vm', status: 'running' });
      const progress: string[] = [];
      const r = (await http.callTool(
        { name: 'box_exec', arguments: { box: 'mcp-vm', command: 'for i in 1 2 3; do echo step$i; sleep 0.4; done; uname -s' } },
        undefined,
        { timeout: VM_TIMEOUT, onprogress: (p) => progress.push(p.message ?? '') },
      )) as Result;
      expect(r.structuredContent).toMatchObject({ exit_code: 0, status: 'succeeded', stdout: 'step1\nstep2\nstep3\nLinux\n', stderr: '' });
      expect(progress).toEqual(expect.arrayContaining(['step1', 'step2']));
    },
    VM_TIMEOUT,
  );

  it(
    'runs code with box_run_code: state across calls (over /mcp, then `box mcp`), a chart as image content, an exception as a tool error',
    async () => {
      const set = await call(http, 'box_run_code', { box: 'mcp-vm', code: 'x = 6 * 7\nprint("set", x)' });
      expect(set).toMatchObject({ stdout: 'set 42\n', error: null, language: 'python' });
      const got = await call(stdio, 'box_run_code', { box: 'mcp-vm', code: 'x' });
      expect(got).toMatchObject({ text: '42', context_id: set.context_id });

      const code = async (c: Client, source: string) =>
        (await c.callTool({ name: 'box_run_code', arguments: { box: 'mcp-vm', code: source } }, undefined, { timeout: VM_TIMEOUT })) as Result;
      const chart = await code(http, 'import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()');
      expect(chart.isError).toBeFalsy();
      const image = chart.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
      expect(image?.mimeType).toBe('image/png');
      const png = Buffer.from(image!.data, 'base64');
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.readUInt32BE(16)).toBeGreaterThan(100); // IHDR width
      // and what it plots, as text a model can read
      const data = chart.content.find((c) => c.type === 'text' && (c as { text: string }).text.startsWith('chart data')) as { text: string } | undefined;
      expect(data?.text).toMatch(/^chart data \(line\): \{/);
      expect(JSON.parse(data!.text.slice(data!.text.indexOf('{')))).toMatchObject(LINE_1_3_2);

      const failed = await code(stdio, 'def f():\n    return 1 / 0\nf()');
      expect(failed.isError).toBe(true);
      const message = (failed.content[0] as { text: string }).text;
      expect(message).toContain('ZeroDivisionError: division by zero');
      expect(message).toContain('return 1 / 0'); // the traceback, without terminal colours
      expect(message).not.toContain('\x1b[');
      expect(failed.structuredContent.error).toMatchObject({ name: 'ZeroDivisionError', value: 'division by zero' });
      expect((await call(http, 'box_run_code', { box: 'mcp-vm', code: 'x + 1' })).text).toBe('43');
    },
    2 * VM_TIMEOUT, // the box's first run starts its kernel cold (BOX_CODE_WARM is off in tests): 200 s under TCG at load 18
  );

  it(
    'serves the same tools over stdio (`box mcp`): exec, files, fork, sleep and wake, egress log',
    async () => {
      const { tools: overStdio } = await stdio.listTools();
      const { tools: overHttp } = await http.listTools();
      // the same tools on both transports (the eleven and the box actions added since)
      expect(overStdio.map((t) => t.name).sort()).toEqual(overHttp.map((t) => t.name).sort());
      expect(overStdio.map((t) => t.name)).toEqual(expect.arrayContaining(['box_exec', 'box_run_code', 'box_restore', 'box_egress_log']));
      expect(await call(stdio, 'box_exec', { box: 'mcp-vm', command: ['cat', '/etc/os-release'] })).toMatchObject({
        exit_code: 0,
        stdout: expect.stringContaining('Debian'),
      });
      const failed = await call(stdio, 'box_exec', { box: 'mcp-vm', command: 'ls /nope', cwd: '/root', env: { X: '1' } });
      expect(failed).toMatchObject({ exit_code: 2, stderr: expect.stringContaining('/nope') });

      await call(stdio, 'box_write_file', { box: 'mcp-vm', path: '/root/work/hello.py', content: 'print("hi from", __name__)\n', mode: '0755' });
      expect(await call(stdio, 'box_exec', { box: 'mcp-vm', command: 'python3 hello.py', cwd: '/root/work' })).toMatchObject({ stdout: 'hi from __main__\n' });
      await call(stdio, 'box_exec', { box: 'mcp-vm', command: 'head -c 300 /dev/urandom > /root/work/rand.bin' });
      const rand = await call(stdio, 'box_read_file', { box: 'mcp-vm', path: '/root/work/rand.bin' });
      expect(rand).toMatchObject({ encoding: 'base64', size_bytes: 300 });
      const listed = await call(stdio, 'box_list_files', { box: 'mcp-vm', path: '/root/work' });
      expect(listed.entries).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'hello.py', type: 'file', mode: '0755' })]));

      const fork = await call(stdio, 'box_fork', { box: 'mcp-vm', name: 'mcp-vm-child' });
      expect(fork.boxes).toHaveLength(1);
      expect(await call(stdio, 'box_read_file', { box: 'mcp-vm-child', path: '/root/work/hello.py' })).toMatchObject({
        content: 'print("hi from", __name__)\n',
      });
      expect(await call(stdio, 'box_terminate', { box: 'mcp-vm-child' })).toMatchObject({ status: 'terminated' });

      expect(await call(stdio, 'box_sleep', { box: 'mcp-vm' })).toMatchObject({ status: 'sleeping' });
      expect(await call(stdio, 'box_exec', { box: 'mcp-vm', command: 'cat /root/work/hello.py' })).toMatchObject({ exit_code: 0 });
      expect(await call(stdio, 'box_egress_log', { box: 'mcp-vm' })).toMatchObject({ entries: expect.any(Array) });
    },
    VM_TIMEOUT,
  );

  it(
    'refuses what the API refuses: no key or a foreign origin on /mcp, a wrong key through `box mcp`',
    async () => {
      const bare = new Client({ name: 'no-key', version: '1' });
      await expect(bare.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`)))).rejects.toThrow(/401|Missing API key/);
      const foreign = new Client({ name: 'foreign', version: '1' });
      const headers = { authorization: `Bearer ${svc.key}`, origin: 'https://evil.example' };
      await expect(foreign.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }))).rejects.toThrow(
        /403|Cross-origin/,
      );

      const wrong = new Client({ name: 'wrong-key', version: '1' });
      await wrong.connect(boxMcp('bxk_not_a_key'));
      const r = (await wrong.callTool({ name: 'box_list', arguments: {} })) as Result;
      expect(r.isError).toBe(true);
      expect((r.content[0] as { text: string }).text).toBe('Invalid API key. (HTTP 401, code invalid_api_key)');
      await wrong.close();
    },
    VM_TIMEOUT,
  );

  it(
    'works from a real MCP host: the MCP Inspector CLI lists the tools over /mcp and runs a command over `box mcp`',
    async () => {
      const run = promisify(execFile);
      // The Inspector finds its own package.json relative to the working directory: run it from a subfolder.
      const cwd = path.join(ROOT, 'scripts');
      const listed = await run(
        INSPECTOR,
        ['--cli', `${svc.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${svc.key}`, '--method', 'tools/list'],
        {
          cwd,
        },
      );
      expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('box_exec');
      const args = ['--cli', '-e', `BOX_URL=${svc.url}`, '-e', `BOX_API_KEY=${svc.key}`, process.execPath, BOX, 'mcp'];
      const called = await run(
        INSPECTOR,
        [...args, '--method', 'tools/call', '--tool-name', 'box_exec', '--tool-arg', 'box=mcp-vm', '--tool-arg', 'command=echo from-the-inspector'],
        {
          cwd,
          timeout: VM_TIMEOUT,
        },
      );
      expect(JSON.parse(called.stdout).structuredContent).toMatchObject({ exit_code: 0, stdout: 'from-the-inspector\n' });
    },
    VM_TIMEOUT,
  );
});
