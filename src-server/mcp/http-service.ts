import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { httpBoxApi, type BoxApi } from './ports.js';
import { createBoxMcpServer } from './server.js';

/** The request headers that carry the caller's credentials, handed on to the API calls. */
const CREDENTIALS = ['authorization', 'x-api-key', 'cookie'] as const;

/**
 * Streamable HTTP at /mcp (stateless: each POST is answered on its own, no session to
 * keep or leak; GET and DELETE are answered 405 by the route). The route has already run the
 * API's guard (loopback Host, no cross-origin) and authenticated the caller; the tools then
 * call the box API on the service's own loopback listener with the caller's credentials,
 * so MCP answers exactly what the API answers that key (access, audit, billing, errors).
 */
export class McpHttpService {
  constructor(private readonly baseUrl: () => string) {}

  /** `exec`: the in-process exec for this caller (mcp-routes.ts), used by box_exec. */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, exec: BoxApi['exec']): Promise<void> {
    const creds: Record<string, string> = {};
    for (const h of CREDENTIALS) {
      const v = req.headers[h];
      if (typeof v === 'string') creds[h] = v;
    }
    const server = createBoxMcpServer({ ...httpBoxApi(this.baseUrl(), creds), exec });
    // A server-sent stream only when the caller asked for progress; plain JSON otherwise.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

/** Whether a JSON-RPC message (or batch) asks for progress notifications (`_meta.progressToken`). */
function wantsProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined);
}
