import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import { McpHttpService } from './http-service.js';
import { mcpRoutes } from './mcp-routes.js';

/**
 * The MCP area (issue 26): Box's tools for agent hosts. The tools themselves are in
 * server.ts (also served over stdio by `box mcp`); here they are mounted at /mcp on the
 * service. Its tools reach boxes through the API's routes (ports.ts): `box mcp` over HTTP,
 * /mcp in-process, through the same pipeline as the caller's HTTP requests (mcp-routes.ts).
 */
export function mcpArea(_app: AppBase) {
  const mcp = new McpHttpService();
  const area: Area = { name: 'mcp', routes: (r) => mcpRoutes(r, mcp), stop: () => mcp.close() };
  return { mcp, area };
}
