import type { AppBase } from '../app-context.js';
import type { Area } from '../area.js';
import { McpHttpService } from './http-service.js';
import { mcpRoutes } from './mcp-routes.js';

/**
 * The MCP area (issue 26): Box's tools for agent hosts. The tools themselves are in
 * server.ts (also served over stdio by `box mcp`); here they are mounted at /mcp on the
 * service. They reach boxes only through the HTTP API (ports.ts), so this area needs no
 * other service.
 */
export function mcpArea(app: AppBase) {
  const mcp = new McpHttpService(app.baseUrl);
  const area: Area = { name: 'mcp', routes: (r) => mcpRoutes(r, mcp) };
  return { mcp, area };
}
