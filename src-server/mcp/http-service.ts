import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { httpBoxApi } from './ports.js';
import { createBoxMcpServer } from './server.js';

/** The request headers that carry the caller's credentials, handed on to the API calls. */
const CREDENTIALS = ['authorization', 'x-api-key', 'cookie'] as const;

/**
 * Streamable HTTP at /mcp (stateless: each POST is answered on its own, no session to
 * keep or leak; a GET or DELETE is answered 405 by the SDK). The route has already run the
 * API's guard (loopback Host, no cross-origin) and authenticated the caller; the tools then
 * call the box API on the service's own loopback listener with the caller's credentials,
 * so MCP answers exactly what the API answers that key (access, audit, billing, errors).
 */
export class McpHttpService {
  constructor(private readonly baseUrl: () => string) {}

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const creds: Record<string, string> = {};
    for (const h of CREDENTIALS) {
      const v = req.headers[h];
      if (typeof v === 'string') creds[h] = v;
    }
    const server = createBoxMcpServer(httpBoxApi(this.baseUrl(), creds));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}
