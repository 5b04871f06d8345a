import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';
import { FakeRuntime } from '../../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../../test-support/harness.js';

/** A tool result's structured content, and its first text. */
export const data = (r: CallToolResult) => r.structuredContent as Record<string, any>;
export const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/**
 * A test file's service (FakeRuntime boxes) and an official MCP client on its /mcp with the
 * service's key, started in beforeAll and closed in afterAll: `t.svc`, `t.client`.
 */
export function mcpTestService() {
  const t = {} as { svc: TestService; client: Client };
  const connect = async (headers: Record<string, string>) => {
    const c = new Client({ name: 'mcp-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${t.svc.url}/mcp`), { requestInit: { headers } }));
    return c;
  };
  beforeAll(async () => {
    t.svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
    t.client = await connect({ authorization: `Bearer ${t.svc.key}` });
  });
  afterAll(async () => {
    await t.client?.close();
    await t.svc?.close();
  });
  return {
    t,
    connect,
    tool: async (name: string, args: Record<string, unknown>) => (await t.client.callTool({ name, arguments: args })) as CallToolResult,
    /** A raw initialize request to /mcp with these headers (no client). */
    initialize: (headers: Record<string, string>) =>
      fetch(`${t.svc.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      }),
  };
}
