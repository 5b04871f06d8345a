import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpTool } from '@box/contract/mcp';
import type { BoxApi } from './ports.js';
import { createBoxMcpServer } from './server.js';

let cached: Promise<McpTool[]> | undefined;

/**
 * The tools Box's MCP server offers, read from the server itself: a server made as `box mcp`
 * and /mcp make theirs, asked by an MCP client over an in-memory transport (tools/list), so
 * the list the settings page shows is the registry's, never a copy. Made once per process.
 */
export function mcpToolList(): Promise<McpTool[]> {
  cached ??= (async () => {
    const unused: BoxApi = {
      send: () => Promise.reject(new Error('tools/list calls no tool')),
    };
    const server = createBoxMcpServer(unused);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'box-tool-list', version: '1' });
    await server.connect(a);
    await client.connect(b);
    try {
      const { tools } = await client.listTools();
      return tools.map((t) => ({
        name: t.name,
        title: t.title ?? t.annotations?.title ?? null,
        description: t.description ?? '',
        read_only: t.annotations?.readOnlyHint === true,
      }));
    } finally {
      await client.close();
      await server.close();
    }
  })();
  cached.catch(() => (cached = undefined));
  return cached;
}
