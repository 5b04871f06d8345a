/**
 * The MCP server over streamable HTTP at /mcp, driven by the official SDK's client against
 * the real service (FakeRuntime boxes: host processes and folders). Real VMs, stdio
 * (`box mcp`) and the MCP Inspector are in mcp.vm.test.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test-support/harness.js';

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

import { data, mcpTestService, text } from './test-support/mcp-client.js';
const { t, connect, tool, initialize } = mcpTestService();

describe('/mcp (streamable HTTP)', () => {
  it('lists exactly the box tools, each with a description and a box argument where it acts on one box', async () => {
    const { tools } = await t.client.listTools();
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
    expect(t.client.getInstructions()).toContain('box_create');
  });

  it('creates a box, runs commands with progress, moves files, and answers by name or id', async () => {
    const created = data(await tool('box_create', { name: 'mcp-one' }));
    expect(created).toMatchObject({ name: 'mcp-one', status: 'running' });
    expect(created.box_id).toMatch(/^box_/);
    expect(data(await tool('box_list', { status: 'running' })).boxes.map((b: { name: string }) => b.name)).toContain('mcp-one');

    const r = data(await tool('box_exec', { box: 'mcp-one', command: 'echo out; echo err >&2; exit 3' }));
    expect(r).toMatchObject({ exit_code: 3, status: 'failed', stdout: 'out\n', stderr: 'err\n' });

    const progress: { progress: number; message?: string }[] = [];
    const looped = (await t.client.callTool(
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
    const res = await t.svc.api(`/v1/boxes/${id}/sleep`, { method: 'POST', json: {} });
    const api = await errorOf(res);
    const r = await tool('box_sleep', { box: id });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(`${api.message} (HTTP ${res.status}, field box_id)`);
    // box_exec runs in-process on /mcp: its refusals are the exec route's, word for word.
    const execRes = await t.svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command: 'true' } });
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
    const api = await errorOf(await t.svc.api(`/v1/boxes/${id}/desktop/recordings/rec_nope/stop`, { method: 'POST', json: {} }));
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
    const app = await (await t.svc.api('/v1/apps/find', { method: 'POST', json: { name: 'default', mint_if_missing: true } })).json();
    const mine = await (await t.svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'mcp-private', visibility: 'private' } })).json();
    const other = await (await t.svc.api('/v1/api-keys', { method: 'POST', json: { name: 'mcp-other', scope: 'organization' } })).json();
    const them = await connect({ authorization: `Bearer ${other.secret}` });
    // A private box: its creator's key runs commands in it, another key is refused (403).
    const calls = Array.from({ length: 12 }, (_, i) =>
      (i % 2 ? them : t.client).callTool({ name: 'box_exec', arguments: { box: mine.box_id, command: `echo ${i}` } }),
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
    const foreign = await initialize({ authorization: `Bearer ${t.svc.key}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await errorOf(foreign)).code).toBe('cross_origin_refused');
    await expect(connect({ origin: 'https://evil.example', authorization: `Bearer ${t.svc.key}` })).rejects.toThrow();
    const ok = await initialize({ authorization: `Bearer ${t.svc.key}` });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    // No sessions, so no stream of its own: 405 after the same checks.
    expect((await fetch(`${t.svc.url}/mcp`, { headers: { accept: 'text/event-stream' } })).status).toBe(401);
    expect((await t.svc.api('/mcp', { headers: { accept: 'text/event-stream' } })).status).toBe(405);
  });
});

describe('/mcp in-process: the API pipeline behind every tool call (issue 36)', () => {
  it('at zero credits each tool call answers the 402 of its route as a tool error, and the session stays usable', async () => {
    await t.svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 0 } });
    try {
      const r = await tool('box_list', {});
      expect(r.isError).toBe(true);
      expect(text(r)).toBe('Your organization has no credits left; add credits to continue. (HTTP 402, code credits_exhausted)');
      expect(text(await tool('box_exec', { box: 'mcp-one', command: 'true' }))).toMatch(/HTTP 402, code credits_exhausted/);
      // The MCP session itself is not billed: listing tools and ping still answer.
      expect((await t.client.listTools()).tools.length).toBe(TOOLS.length);
    } finally {
      await t.svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 5_000_000_000 } });
    }
    expect(data(await tool('box_list', {})).total).toBeGreaterThan(0);
  });

  it("counts each tool call against the organization's concurrency limit (429 when it is full)", async () => {
    const org = await (await t.svc.api('/v1/organization')).json();
    const held: (() => void)[] = [];
    // Fill the short pool (the /mcp request itself is in the stream pool): its box_list finds no slot.
    for (;;) {
      try {
        held.push(t.svc.ctx.limiter.acquire(org.org_id));
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
    expect(t.svc.ctx.limiter.current(org.org_id)).toBe(0);
    expect((await tool('box_list', {})).isError).toBeUndefined();
  });

  it("runs an operator's override of a private box through the access check and audits it with the route's path", async () => {
    const app = await (await t.svc.api('/v1/apps/find', { method: 'POST', json: { name: 'default', mint_if_missing: true } })).json();
    const box = await (await t.svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'mcp-audited', visibility: 'private' } })).json();
    const other = await (await t.svc.api('/v1/api-keys', { method: 'POST', json: { name: 'mcp-operator', scope: 'organization' } })).json();
    const plain = await connect({ authorization: `Bearer ${other.secret}` });
    const refused = (await plain.callTool({ name: 'box_exec', arguments: { box: box.box_id, command: 'true' } })) as CallToolResult;
    expect(text(refused)).toMatch(/private to the key that created it.*\(HTTP 403/);
    await plain.close();
    const operator = await connect({ authorization: `Bearer ${other.secret}`, 'X-Box-Override-Reason': 'incident 77' });
    const ran = (await operator.callTool({ name: 'box_exec', arguments: { box: box.box_id, command: 'echo in' } })) as CallToolResult;
    expect(data(ran)).toMatchObject({ exit_code: 0, stdout: 'in\n' });
    await operator.close();
    const log = await (await t.svc.api('/v1/audit-log')).json();
    expect(log.data[0]).toMatchObject({ action: 'box.override.exec', target: box.box_id, reason: 'incident 77', key_id: other.id });
    expect(JSON.stringify(log.data[0])).toContain(`/v1/boxes/${box.box_id}/exec`);
  });
});
