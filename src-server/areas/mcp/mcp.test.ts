/**
 * The MCP server over streamable HTTP at /mcp, driven by the official SDK's client against
 * the real service (FakeRuntime boxes: host processes and folders). Real VMs, stdio
 * (`box mcp`) and the MCP Inspector are in mcp.vm.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import path from 'node:path';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

const TOOLS = [
  'box_checkpoint',
  'box_click',
  'box_create',
  'box_delete_path',
  'box_egress_log',
  'box_exec',
  'box_fork',
  'box_key',
  'box_launch',
  'box_list',
  'box_list_files',
  'box_make_dir',
  'box_move_path',
  'box_read_file',
  'box_recording_delete',
  'box_recording_frame',
  'box_recording_start',
  'box_recording_stop',
  'box_recordings',
  'box_restore',
  'box_run_code',
  'box_screenshot',
  'box_scroll',
  'box_sleep',
  'box_terminate',
  'box_type',
  'box_write_file',
];

let svc: TestService;
let client: Client;

async function connect(headers: Record<string, string>) {
  const c = new Client({ name: 'mcp-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }));
  return c;
}
const tool = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const data = (r: CallToolResult) => r.structuredContent as Record<string, any>;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const initialize = (headers: Record<string, string>) =>
  fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }),
  });

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  client = await connect({ authorization: `Bearer ${svc.key}` });
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

describe('/mcp (streamable HTTP)', () => {
  it('lists exactly the box tools, each with a description and a box argument where it acts on one box', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(80);
      const props = Object.keys(t.inputSchema.properties ?? {});
      if (!['box_list', 'box_create'].includes(t.name)) expect(props).toContain('box');
    }
    const exec = tools.find((t) => t.name === 'box_exec')!;
    // From the contract's ExecBody: a string or an argv array, cwd must be absolute.
    expect(JSON.stringify(exec.inputSchema.properties!.command)).toContain('array');
    expect(exec.inputSchema.required).toEqual(expect.arrayContaining(['box', 'command']));
    expect(client.getInstructions()).toContain('box_create');
  });

  it('creates a box, runs commands with progress, moves files, and answers by name or id', async () => {
    const created = data(await tool('box_create', { name: 'mcp-one' }));
    expect(created).toMatchObject({ name: 'mcp-one', status: 'running' });
    expect(created.box_id).toMatch(/^box_/);
    expect(data(await tool('box_list', { status: 'running' })).boxes.map((b: { name: string }) => b.name)).toContain('mcp-one');

    const r = data(await tool('box_exec', { box: 'mcp-one', command: 'echo out; echo err >&2; exit 3' }));
    expect(r).toMatchObject({ exit_code: 3, status: 'failed', stdout: 'out\n', stderr: 'err\n' });

    const progress: { progress: number; message?: string }[] = [];
    const looped = (await client.callTool(
      { name: 'box_exec', arguments: { box: created.box_id, command: ['sh', '-c', 'for i in 1 2 3; do echo line$i; sleep 0.3; done'] } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )) as CallToolResult;
    expect(data(looped)).toMatchObject({ exit_code: 0, stdout: 'line1\nline2\nline3\n' });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((p) => p.message)).toContain('line1');

    expect(data(await tool('box_write_file', { box: 'mcp-one', path: '/root/notes.txt', content: 'hello\n' })).size_bytes).toBe(6);
    const bin = Buffer.from([0, 1, 2, 255, 254]);
    await tool('box_write_file', { box: 'mcp-one', path: '/root/blob.bin', content: bin.toString('base64'), encoding: 'base64', mode: '0600' });
    expect(data(await tool('box_read_file', { box: 'mcp-one', path: '/root/notes.txt' }))).toMatchObject({ encoding: 'text', content: 'hello\n' });
    const blob = data(await tool('box_read_file', { box: 'mcp-one', path: '/root/blob.bin' }));
    expect(blob).toMatchObject({ encoding: 'base64', size_bytes: 5 });
    expect(Buffer.from(blob.content, 'base64')).toEqual(bin);
    const listing = data(await tool('box_list_files', { box: 'mcp-one', path: '/root' }));
    expect(listing.entries.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['blob.bin', 'notes.txt']));
    expect(data(await tool('box_egress_log', { box: 'mcp-one' }))).toMatchObject({ entries: [], total: 0 });
  });

  it('checkpoints and restores a box in place, makes, moves and deletes paths (issue 29)', async () => {
    await tool('box_create', { name: 'mcp-ops' });
    await tool('box_write_file', { box: 'mcp-ops', path: '/root/keep.txt', content: 'kept\n' });
    const cp = data(await tool('box_checkpoint', { box: 'mcp-ops', name: 'base' }));
    expect(cp).toMatchObject({ name: 'base', status: 'ready' });
    await tool('box_write_file', { box: 'mcp-ops', path: '/root/later.txt', content: 'later\n' });
    await tool('box_checkpoint', { box: 'mcp-ops', name: 'later' });
    expect(data(await tool('box_restore', { box: 'mcp-ops', checkpoint_id: cp.checkpoint_id }))).toMatchObject({
      name: 'mcp-ops',
      status: 'running',
      on_checkpoint_id: cp.checkpoint_id,
    });
    expect((data(await tool('box_list', {})).boxes as { name: string; on_checkpoint_id?: string }[]).find((b) => b.name === 'mcp-ops')).toMatchObject({
      on_checkpoint_id: cp.checkpoint_id,
    });
    const names = async (p: string) => data(await tool('box_list_files', { box: 'mcp-ops', path: p })).entries.map((e: { name: string }) => e.name);
    expect(await names('/root')).toEqual(['keep.txt']);
    expect(data(await tool('box_make_dir', { box: 'mcp-ops', path: '/root/d' }))).toMatchObject({ name: 'd', type: 'directory' });
    expect(data(await tool('box_move_path', { box: 'mcp-ops', from: '/root/keep.txt', to: '/root/d/k.txt' }))).toMatchObject({ name: 'k.txt' });
    const full = await tool('box_delete_path', { box: 'mcp-ops', path: '/root/d' });
    expect(full.isError).toBe(true);
    expect(text(full)).toContain('recursive');
    expect(data(await tool('box_delete_path', { box: 'mcp-ops', path: '/root/d', recursive: true }))).toEqual({ path: '/root/d', deleted: true });
    expect(await names('/root')).toEqual([]);
    const clash = await tool('box_make_dir', { box: 'mcp-ops', path: '/root/../etc' });
    expect(clash.isError).toBe(true);
    expect(text(clash)).toContain('path');
  });

  it("answers failures as tool errors carrying the API's message", async () => {
    const missing = await tool('box_exec', { box: 'no-such-box', command: 'true' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('No box is named "no-such-box"');

    const id = data(await tool('box_create', { name: 'mcp-gone' })).box_id as string;
    expect(data(await tool('box_terminate', { box: 'mcp-gone' })).status).toBe('terminated');
    const res = await svc.api(`/v1/boxes/${id}/sleep`, { method: 'POST', json: {} });
    const api = await errorOf(res);
    const r = await tool('box_sleep', { box: id });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(`${api.message} (HTTP ${res.status}, field box_id)`);
    // box_exec runs in-process on /mcp: its refusals are the exec route's, word for word.
    const execRes = await svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command: 'true' } });
    const execApi = await errorOf(execRes);
    expect(text(await tool('box_exec', { box: id, command: 'true' }))).toBe(`${execApi.message} (HTTP ${execRes.status}, field box_id)`);
    const badCwd = await tool('box_exec', { box: 'mcp-one', command: 'true', cwd: 'relative' });
    expect(badCwd.isError).toBe(true);
    expect(text(badCwd)).toContain('cwd');

    const notFile = await tool('box_read_file', { box: data(await tool('box_list', {})).boxes[0].box_id, path: '/nope/none.txt' });
    expect(notFile.isError).toBe(true);
    expect(text(notFile)).toMatch(/HTTP 404/);
  });

  it('screen recordings: lists, refuses bad ids and values naming the field, as the API does (real recording: desktop.vm.test.ts)', async () => {
    const id = data(await tool('box_create', { name: 'mcp-rec' })).box_id as string;
    expect(data(await tool('box_recordings', { box: 'mcp-rec' }))).toEqual({ box_id: id, recordings: [] });
    const bad = await tool('box_recording_stop', { box: id, recording_id: 'rec_nope' });
    expect(bad.isError).toBe(true);
    const api = await errorOf(await svc.api(`/v1/boxes/${id}/desktop/recordings/rec_nope/stop`, { method: 'POST', json: {} }));
    expect(text(bad)).toBe(`${api.message} (HTTP 400, field recording_id)`);
    const unknown = `rec_${'0'.repeat(32)}`;
    const gone = await tool('box_recording_frame', { box: id, recording_id: unknown, image: 0 });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toMatch(/HTTP 404, field recording_id\)$/);
    expect((await tool('box_recordings', { box: id, recording_id: unknown })).isError).toBe(true);
    expect((await tool('box_recording_delete', { box: id, recording_id: unknown })).isError).toBe(true);
    const slow = await tool('box_recording_start', { box: id, interval_ms: 50 });
    expect(slow.isError).toBe(true);
    expect(text(slow)).toContain('interval_ms');
    await tool('box_terminate', { box: id });
  });

  it('reuses its servers across requests without mixing callers: two keys at once each act as themselves', async () => {
    const app = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'default', mint_if_missing: true } })).json();
    const mine = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'mcp-private', visibility: 'private' } })).json();
    const other = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'mcp-other', scope: 'organization' } })).json();
    const them = await connect({ authorization: `Bearer ${other.secret}` });
    // A private box: its creator's key runs commands in it, another key is refused (403).
    const calls = Array.from({ length: 12 }, (_, i) =>
      (i % 2 ? them : client).callTool({ name: 'box_exec', arguments: { box: mine.box_id, command: `echo ${i}` } }),
    ) as Promise<CallToolResult>[];
    const results = await Promise.all(calls);
    results.forEach((r, i) => {
      if (i % 2) expect(text(r)).toMatch(/HTTP 403/);
      else expect(data(r)).toMatchObject({ exit_code: 0, stdout: `${i}\n` });
    });
    await them.close();
  });

  it('refuses a request without a key, with a wrong key, from a foreign origin or a foreign Host, like the API', async () => {
    const none = await initialize({});
    expect(none.status).toBe(401);
    expect((await errorOf(none)).code).toBe('invalid_api_key');
    expect((await initialize({ authorization: 'Bearer bxk_wrong' })).status).toBe(401);
    const foreign = await initialize({ authorization: `Bearer ${svc.key}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await errorOf(foreign)).code).toBe('cross_origin_refused');
    await expect(connect({ origin: 'https://evil.example', authorization: `Bearer ${svc.key}` })).rejects.toThrow();
    const ok = await initialize({ authorization: `Bearer ${svc.key}` });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    // No sessions, so no stream of its own: 405 after the same checks.
    expect((await fetch(`${svc.url}/mcp`, { headers: { accept: 'text/event-stream' } })).status).toBe(401);
    expect((await svc.api('/mcp', { headers: { accept: 'text/event-stream' } })).status).toBe(405);
  });
});

describe('/mcp in-process: the API pipeline behind every tool call (issue 36)', () => {
  it('at zero credits each tool call answers the 402 of its route as a tool error, and the session stays usable', async () => {
    await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 0 } });
    try {
      const r = await tool('box_list', {});
      expect(r.isError).toBe(true);
      expect(text(r)).toBe('Your organization has no credits left; add credits to continue. (HTTP 402, code credits_exhausted)');
      expect(text(await tool('box_exec', { box: 'mcp-one', command: 'true' }))).toMatch(/HTTP 402, code credits_exhausted/);
      // The MCP session itself is not billed: listing tools and ping still answer.
      expect((await client.listTools()).tools.length).toBe(TOOLS.length);
    } finally {
      await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 5_000_000_000 } });
    }
    expect(data(await tool('box_list', {})).total).toBeGreaterThan(0);
  });

  it("counts each tool call against the organization's concurrency limit (429 when it is full)", async () => {
    const org = await (await svc.api('/v1/organization')).json();
    const held: (() => void)[] = [];
    // Fill the short pool (the /mcp request itself is in the stream pool): its box_list finds no slot.
    for (;;) {
      try {
        held.push(svc.ctx.limiter.acquire(org.org_id));
      } catch {
        break;
      }
    }
    try {
      const r = await tool('box_list', {});
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^Too many requests in flight for this organization \(limit \d+\).*\(HTTP 429, code rate_limited\)$/);
    } finally {
      for (const release of held) release();
    }
    expect(svc.ctx.limiter.current(org.org_id)).toBe(0);
    expect((await tool('box_list', {})).isError).toBeUndefined();
  });

  it("runs an operator's override of a private box through the access check and audits it with the route's path", async () => {
    const app = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'default', mint_if_missing: true } })).json();
    const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'mcp-audited', visibility: 'private' } })).json();
    const other = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'mcp-operator', scope: 'organization' } })).json();
    const plain = await connect({ authorization: `Bearer ${other.secret}` });
    const refused = (await plain.callTool({ name: 'box_exec', arguments: { box: box.box_id, command: 'true' } })) as CallToolResult;
    expect(text(refused)).toMatch(/private to the key that created it.*\(HTTP 403/);
    await plain.close();
    const operator = await connect({ authorization: `Bearer ${other.secret}`, 'X-Box-Override-Reason': 'incident 77' });
    const ran = (await operator.callTool({ name: 'box_exec', arguments: { box: box.box_id, command: 'echo in' } })) as CallToolResult;
    expect(data(ran)).toMatchObject({ exit_code: 0, stdout: 'in\n' });
    await operator.close();
    const log = await (await svc.api('/v1/audit-log')).json();
    expect(log.data[0]).toMatchObject({ action: 'box.override.exec', target: box.box_id, reason: 'incident 77', key_id: other.id });
    expect(JSON.stringify(log.data[0])).toContain(`/v1/boxes/${box.box_id}/exec`);
  });
});

describe('/mcp: logging, progress, resources and subscriptions, completion, sessions (issue 34)', () => {
  const until = async (what: () => boolean, ms = 8000) => {
    for (const end = Date.now() + ms; !what();) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('streams box_exec output as log notifications before the answer, filtered by logging/setLevel', async () => {
    const c = await connect({ authorization: `Bearer ${svc.key}` });
    const events: ({ level: string; data: any } | 'answer')[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void events.push({ level: n.params.level, data: n.params.data }));
    const box = data((await c.callTool({ name: 'box_create', arguments: { name: 'mcp-log' } })) as CallToolResult);
    await c.setLoggingLevel('info');
    const cmd = 'for i in 1 2 3; do echo chunk$i; sleep 0.2; done; echo oops >&2';
    const r = (await c.callTool({ name: 'box_exec', arguments: { box: 'mcp-log', command: cmd } })) as CallToolResult;
    events.push('answer');
    expect(data(r)).toMatchObject({ exit_code: 0, stdout: 'chunk1\nchunk2\nchunk3\n', stderr: 'oops\n' });
    const logs = events.filter((e) => e !== 'answer' && e.data.box_id === box.box_id) as { level: string; data: any }[];
    const out = logs.filter((l) => l.data.stream === 'stdout');
    // Chunk by chunk as they came (0.2 s apart), all of them ahead of the answer.
    expect(out.length).toBeGreaterThanOrEqual(2);
    expect(out.map((l) => l.data.text).join('')).toBe('chunk1\nchunk2\nchunk3\n');
    expect(logs.filter((l) => l.data.stream === 'stderr').map((l) => l.data.text)).toEqual(['oops\n']);
    expect(logs.every((l) => l.level === 'info')).toBe(true);
    expect(events.indexOf('answer')).toBe(events.length - 1);

    await c.setLoggingLevel('warning');
    events.length = 0;
    await c.callTool({ name: 'box_exec', arguments: { box: 'mcp-log', command: 'echo quiet' } });
    expect(events).toEqual([]);
    await c.close();
  });

  it('reports progress while box_create waits, when the call has a progress token', async () => {
    const progress: { progress: number; message?: string }[] = [];
    const r = (await client.callTool({ name: 'box_create', arguments: { name: 'mcp-progress' } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(data(r)).toMatchObject({ name: 'mcp-progress', status: 'running' });
    expect(progress[0]).toMatchObject({ progress: 0, message: 'creating box mcp-progress…' });
  });

  it("serves a box's files, console and egress log as resources, and completes box_id", async () => {
    const box = data(await tool('box_create', { name: 'mcp-res' }));
    await tool('box_write_file', { box: 'mcp-res', path: '/root/a.txt', content: 'alpha\n' });
    await tool('box_write_file', { box: 'mcp-res', path: '/root/b.bin', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' });
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates.sort()).toEqual(['box://{box_id}/console', 'box://{box_id}/egress-log', 'box://{box_id}/files/{+path}']);
    const listed = (await client.listResources()).resources;
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uri: `box://${box.box_id}/console`, name: 'mcp-res console', mimeType: 'text/plain' }),
        expect.objectContaining({ uri: `box://${box.box_id}/egress-log`, name: 'mcp-res egress log' }),
      ]),
    );
    const text1 = await client.readResource({ uri: 'box://mcp-res/files/root/a.txt' });
    expect(text1.contents).toEqual([{ uri: 'box://mcp-res/files/root/a.txt', mimeType: 'text/plain', text: 'alpha\n' }]);
    const bin = await client.readResource({ uri: `box://${box.box_id}/files/root/b.bin` });
    expect(bin.contents[0]).toMatchObject({ mimeType: 'application/octet-stream', blob: Buffer.from([0, 1, 2]).toString('base64') });
    const egress = await client.readResource({ uri: `box://${box.box_id}/egress-log` });
    expect(JSON.parse((egress.contents[0] as { text: string }).text)).toMatchObject({ entries: [], total: 0 });
    expect((await client.readResource({ uri: `box://${box.box_id}/console` })).contents[0]).toMatchObject({ mimeType: 'text/plain' });
    await expect(client.readResource({ uri: 'box://mcp-res/files/root/none.txt' })).rejects.toThrow(
      /MCP error -32002: No such file or directory in the box: \/root\/none.txt \(HTTP 404/,
    );

    const done = await client.complete({ ref: { type: 'ref/resource', uri: 'box://{box_id}/console' }, argument: { name: 'box_id', value: 'mcp-re' } });
    expect(done.completion.values).toEqual(['mcp-res']);
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'none' }, argument: { name: 'x', value: '' } })).completion.values).toEqual([]);
  });

  it("offers prompts: box_task sets up a task in a fresh box, box_diagnose embeds a box's console and egress log", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['box_diagnose', 'box_task']);
    for (const p of prompts) expect(p.description!.length).toBeGreaterThan(40);
    expect(prompts.find((p) => p.name === 'box_task')!.arguments).toEqual([
      expect.objectContaining({ name: 'task', required: true }),
      expect.objectContaining({ name: 'template', required: false }),
    ]);

    const task = await client.getPrompt({ name: 'box_task', arguments: { task: 'count the primes below 100', template: 'debian' } });
    const taskText = (task.messages[0]!.content as { text: string }).text;
    expect(taskText).toContain('count the primes below 100');
    expect(taskText).toContain('box_create (image "debian")');

    const box = data(await tool('box_create', { name: 'mcp-diag' }));
    const diag = await client.getPrompt({ name: 'box_diagnose', arguments: { box: 'mcp-diag' } });
    expect(diag.description).toBe('Diagnose box mcp-diag (running)');
    expect(diag.messages.map((m) => m.content.type)).toEqual(['text', 'resource', 'resource']);
    expect(diag.messages[1]!.content).toMatchObject({ type: 'resource', resource: { uri: `box://${box.box_id}/console`, mimeType: 'text/plain' } });
    expect(diag.messages[2]!.content).toMatchObject({ type: 'resource', resource: { uri: `box://${box.box_id}/egress-log`, mimeType: 'application/json' } });
    // its argument completes to the live boxes; a missing box is the API's 404, named
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'box_diagnose' }, argument: { name: 'box', value: 'mcp-di' } });
    expect(done.completion.values).toEqual(['mcp-diag']);
    await expect(client.getPrompt({ name: 'box_diagnose', arguments: { box: 'no-such-box' } })).rejects.toThrow(/no-such-box/);
    await expect(client.getPrompt({ name: 'box_task', arguments: {} })).rejects.toThrow(/task/);
  });

  it('notifies a subscriber when a subscribed file changes, and stops after unsubscribe', async () => {
    await tool('box_create', { name: 'mcp-sub' });
    await tool('box_write_file', { box: 'mcp-sub', path: '/root/w.txt', content: 'one' });
    const c = await connect({ authorization: `Bearer ${svc.key}` });
    const updated: string[] = [];
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    const uri = 'box://mcp-sub/files/root/w.txt';
    await c.subscribeResource({ uri });
    await new Promise((r) => setTimeout(r, 1200)); // its first look
    await tool('box_write_file', { box: 'mcp-sub', path: '/root/w.txt', content: 'two' });
    await until(() => updated.length > 0);
    expect(updated).toEqual([uri]);
    await c.unsubscribeResource({ uri });
    await tool('box_write_file', { box: 'mcp-sub', path: '/root/w.txt', content: 'three' });
    await new Promise((r) => setTimeout(r, 2200));
    expect(updated).toEqual([uri]);
    await c.close();
  });

  it('keeps a session to the key that opened it', async () => {
    const res = await initialize({ authorization: `Bearer ${svc.key}` });
    const sid = res.headers.get('mcp-session-id')!;
    await res.body?.cancel();
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    const other = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'mcp-session-thief', scope: 'organization' } })).json();
    const list = (key: string) =>
      fetch(`${svc.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    const stolen = await list(other.secret);
    expect(stolen.status).toBe(404);
    expect((await errorOf(stolen)).code).toBe('session_not_found');
    const own = await list(svc.key);
    expect(own.status).toBe(200);
    await own.body?.cancel();
    const end = await fetch(`${svc.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${svc.key}`, 'mcp-session-id': sid } });
    expect(end.status).toBe(200);
    expect((await list(svc.key)).status).toBe(404);
  });
});

describe('box mcp (stdio, an HTTP client of the service): the same protocol', () => {
  it('streams exec output as log messages and reads a file resource', async () => {
    await tool('box_create', { name: 'mcp-stdio' });
    await tool('box_write_file', { box: 'mcp-stdio', path: '/root/s.txt', content: 'over stdio\n' });
    const box = path.resolve(import.meta.dirname, '../../../bin/box.mjs');
    const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, BOX_URL: svc.url, BOX_API_KEY: svc.key, BOX_DATA_DIR: '/nonexistent-box-data-dir' };
    const c = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [box, 'mcp'], env, stderr: 'ignore' }));
    try {
      const logs: any[] = [];
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      await c.setLoggingLevel('debug');
      const r = (await c.callTool({ name: 'box_exec', arguments: { box: 'mcp-stdio', command: 'echo a; sleep 0.2; echo b' } })) as CallToolResult;
      expect(data(r)).toMatchObject({ exit_code: 0, stdout: 'a\nb\n' });
      expect(
        logs
          .filter((l) => l.stream === 'stdout')
          .map((l) => l.text)
          .join(''),
      ).toBe('a\nb\n');
      const read = await c.readResource({ uri: 'box://mcp-stdio/files/root/s.txt' });
      expect(read.contents[0]).toMatchObject({ mimeType: 'text/plain', text: 'over stdio\n' });
    } finally {
      await c.close();
    }
  }, 60_000);
});
