/**
 * Box's MCP server (issue 26): the tools, on the official SDK, over a BoxApi port
 * (ports.ts). The public face of the MCP area for the clients: `box mcp` (src-cli) loads this
 * file lazily and serves it over stdio; the service serves it over streamable HTTP at /mcp
 * (module.ts). It imports nothing of the service but the contract (dependency-cruiser).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerBoxOpsTools } from './tools-box-ops.js';
import { registerBoxTools } from './tools-boxes.js';
import { registerCodeTools } from './tools-code.js';
import { registerDesktopTools } from './tools-desktop.js';
import { registerExecTools } from './tools-exec.js';
import { httpBoxApi, type ApiOf, type BoxApi } from './ports.js';
import { handleLogLevel } from './logging.js';
import { registerBoxPrompts } from './prompts.js';
import { registerBoxResources } from './resources.js';
import { closeSubscriptions } from './subscriptions.js';

const MCP_SERVER_NAME = 'box';

const INSTRUCTIONS =
  'Box runs sandboxes ("boxes"): isolated Linux microVMs on this machine. Create one with box_create (or reuse one from box_list), ' +
  'then run shell commands with box_exec, Python/JavaScript snippets with box_run_code, and move files with box_write_file, box_read_file and box_list_files. ' +
  'Every box tool takes `box` as a box id or name. Fork a box to try things on a copy; terminate boxes you no longer need. ' +
  'Resources: box://BOX/files/PATH (a file), box://BOX/console and box://BOX/egress-log, which can be subscribed to. ' +
  "Prompts: box_task (a task in a fresh box) and box_diagnose (a box's console and egress log, for a diagnosis).";

/** A new MCP server with every box tool, acting through `api` (one for all calls, or each call's own). */
export function createBoxMcpServer(api: BoxApi | ApiOf, version = '0.1.0'): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'Box sandboxes', version },
    { instructions: INSTRUCTIONS, capabilities: { logging: {}, completions: {}, resources: { subscribe: true, listChanged: true } } },
  );
  const apiOf: ApiOf = typeof api === 'function' ? api : () => api;
  registerBoxTools(server, apiOf);
  registerBoxOpsTools(server, apiOf);
  registerExecTools(server, apiOf);
  registerCodeTools(server, apiOf);
  registerDesktopTools(server, apiOf);
  registerBoxResources(server, apiOf);
  registerBoxPrompts(server, apiOf);
  handleLogLevel(server);
  return server;
}

/**
 * `box mcp`: the server on this process's stdin/stdout, reaching the service at `url` with
 * `apiKey`. Resolves when the host closes stdin (or the transport closes).
 */
// (loaded by `box mcp` with a dynamic import, which ts-unused-exports does not follow)
// ts-unused-exports:disable-next-line
export async function serveStdio(url: string, apiKey: string, fetchImpl?: typeof fetch): Promise<void> {
  const server = createBoxMcpServer(httpBoxApi(url, { authorization: `Bearer ${apiKey}` }, fetchImpl));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(transport);
  await closed;
  closeSubscriptions(server);
  await server.close();
}
