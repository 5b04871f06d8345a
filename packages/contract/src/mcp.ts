import { z } from 'zod';

/** One tool of Box's MCP server, as an MCP client's tools/list shows it (GET /v1/mcp/tools). */
export const McpTool = z.object({
  name: z.string(),
  title: z.string().nullable(),
  description: z.string(),
  /** The tool only reads (its readOnlyHint). */
  read_only: z.boolean(),
});
export type McpTool = z.infer<typeof McpTool>;
