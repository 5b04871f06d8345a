/**
 * The rest of the MCP protocol (logging, progress, resources and subscriptions, prompts,
 * completion, sessions) at /mcp and over stdio through `box mcp`, with the official SDK's
 * client against the real service (FakeRuntime boxes). Tools: mcp.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import path from 'node:path';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test-support/harness.js';

import { data, mcpTestService } from './test-support/mcp-client.js';
const { t, connect, tool, initialize } = mcpTestService();
describe('/mcp: logging, progress, resources and subscriptions, completion, sessions (issue 34)', () => {
  const until = async (what: () => boolean, ms = 8000) => {
    for (const end = Date.now() + ms; !what();) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('streams box_exec output as log notifications before the answer, filtered by logging/setLevel', async () => {
    const c = await connect({ authorization: `Bearer ${t.svc.key}` });
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
    const r = (await t.client.callTool({ name: 'box_create', arguments: { name: 'mcp-progress' } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(data(r)).toMatchObject({ name: 'mcp-progress', status: 'running' });
    expect(progress[0]).toMatchObject({ progress: 0, message: 'creating box mcp-progress…' });
  });

  it("serves a box's files, console and egress log as resources, and completes box_id", async () => {
    const box = data(await tool('box_create', { name: 'mcp-res' }));
    await tool('box_write_file', { box: 'mcp-res', path: '/root/a.txt', content: 'alpha\n' });
    await tool('box_write_file', { box: 'mcp-res', path: '/root/b.bin', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' });
    const templates = (await t.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates.sort()).toEqual(['box://{box_id}/console', 'box://{box_id}/egress-log', 'box://{box_id}/files/{+path}']);
    const listed = (await t.client.listResources()).resources;
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uri: `box://${box.box_id}/console`, name: 'mcp-res console', mimeType: 'text/plain' }),
        expect.objectContaining({ uri: `box://${box.box_id}/egress-log`, name: 'mcp-res egress log' }),
      ]),
    );
    const text1 = await t.client.readResource({ uri: 'box://mcp-res/files/root/a.txt' });
    expect(text1.contents).toEqual([{ uri: 'box://mcp-res/files/root/a.txt', mimeType: 'text/plain', text: 'alpha\n' }]);
    const bin = await t.client.readResource({ uri: `box://${box.box_id}/files/root/b.bin` });
    expect(bin.contents[0]).toMatchObject({ mimeType: 'application/octet-stream', blob: Buffer.from([0, 1, 2]).toString('base64') });
    const egress = await t.client.readResource({ uri: `box://${box.box_id}/egress-log` });
    expect(JSON.parse((egress.contents[0] as { text: string }).text)).toMatchObject({ entries: [], total: 0 });
    expect((await t.client.readResource({ uri: `box://${box.box_id}/console` })).contents[0]).toMatchObject({ mimeType: 'text/plain' });
    await expect(t.client.readResource({ uri: 'box://mcp-res/files/root/none.txt' })).rejects.toThrow(
      /MCP error -32002: No such file or directory in the box: \/root\/none.txt \(HTTP 404/,
    );

    const done = await t.client.complete({ ref: { type: 'ref/resource', uri: 'box://{box_id}/console' }, argument: { name: 'box_id', value: 'mcp-re' } });
    expect(done.completion.values).toEqual(['mcp-res']);
    expect((await t.client.complete({ ref: { type: 'ref/prompt', name: 'none' }, argument: { name: 'x', value: '' } })).completion.values).toEqual([]);
  });

  it("offers prompts: box_task sets up a task in a fresh box, box_diagnose embeds a box's console and egress log", async () => {
    const { prompts } = await t.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['box_diagnose', 'box_task']);
    for (const p of prompts) expect(p.description!.length).toBeGreaterThan(40);
    expect(prompts.find((p) => p.name === 'box_task')!.arguments).toEqual([
      expect.objectContaining({ name: 'task', required: true }),
      expect.objectContaining({ name: 'template', required: false }),
    ]);

    const task = await t.client.getPrompt({ name: 'box_task', arguments: { task: 'count the primes below 100', template: 'debian' } });
    const taskText = (task.messages[0]!.content as { text: string }).text;
    expect(taskText).toContain('count the primes below 100');
    expect(taskText).toContain('box_create (image "debian")');

    const box = data(await tool('box_create', { name: 'mcp-diag' }));
    const diag = await t.client.getPrompt({ name: 'box_diagnose', arguments: { box: 'mcp-diag' } });
    expect(diag.description).toBe('Diagnose box mcp-diag (running)');
    expect(diag.messages.map((m) => m.content.type)).toEqual(['text', 'resource', 'resource']);
    expect(diag.messages[1]!.content).toMatchObject({ type: 'resource', resource: { uri: `box://${box.box_id}/console`, mimeType: 'text/plain' } });
    expect(diag.messages[2]!.content).toMatchObject({ type: 'resource', resource: { uri: `box://${box.box_id}/egress-log`, mimeType: 'application/json' } });
    // its argument completes to the live boxes; a missing box is the API's 404, named
    const done = await t.client.complete({ ref: { type: 'ref/prompt', name: 'box_diagnose' }, argument: { name: 'box', value: 'mcp-di' } });
    expect(done.completion.values).toEqual(['mcp-diag']);
    await expect(t.client.getPrompt({ name: 'box_diagnose', arguments: { box: 'no-such-box' } })).rejects.toThrow(/no-such-box/);
    await expect(t.client.getPrompt({ name: 'box_task', arguments: {} })).rejects.toThrow(/task/);
  });

  it('notifies a subscriber when a subscribed file changes, and stops after unsubscribe', async () => {
    await tool('box_create', { name: 'mcp-sub' });
    await tool('box_write_file', { box: 'mcp-sub', path: '/root/w.txt', content: 'one' });
    const c = await connect({ authorization: `Bearer ${t.svc.key}` });
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
    const res = await initialize({ authorization: `Bearer ${t.svc.key}` });
    const sid = res.headers.get('mcp-session-id')!;
    await res.body?.cancel();
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    const other = await (await t.svc.api('/v1/api-keys', { method: 'POST', json: { name: 'mcp-session-thief', scope: 'organization' } })).json();
    const list = (key: string) =>
      fetch(`${t.svc.url}/mcp`, {
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
    const own = await list(t.svc.key);
    expect(own.status).toBe(200);
    await own.body?.cancel();
    const end = await fetch(`${t.svc.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${t.svc.key}`, 'mcp-session-id': sid } });
    expect(end.status).toBe(200);
    expect((await list(t.svc.key)).status).toBe(404);
  });
});

describe('box mcp (stdio, an HTTP client of the service): the same protocol', () => {
  it('streams exec output as log messages and reads a file resource', async () => {
    await tool('box_create', { name: 'mcp-stdio' });
    await tool('box_write_file', { box: 'mcp-stdio', path: '/root/s.txt', content: 'over stdio\n' });
    const box = path.resolve(import.meta.dirname, '../../../bin/box.mjs');
    const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, BOX_URL: t.svc.url, BOX_API_KEY: t.svc.key, BOX_DATA_DIR: '/nonexistent-box-data-dir' };
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
