import type { AppBase } from '../app-context.js';
import type { Area } from '../area.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { ExecService } from '../boxes/module.js';
import { McpHttpService } from './http-service.js';
import { mcpRoutes } from './mcp-routes.js';

/**
 * The MCP area (issue 26): Box's tools for agent hosts. The tools themselves are in
 * server.ts (also served over stdio by `box mcp`); here they are mounted at /mcp on the
 * service. Its tools reach boxes through the HTTP API (ports.ts); on /mcp, box_exec runs
 * in-process through the exec service and the boxes area's access check.
 */
export function mcpArea(app: AppBase, deps: { execs: ExecService; access: BoxAccess }) {
  const mcp = new McpHttpService(app.baseUrl);
  const area: Area = { name: 'mcp', routes: (r) => mcpRoutes(r, mcp, deps) };
  return { mcp, area };
}
