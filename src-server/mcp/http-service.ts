import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ApiOf, BoxApi } from './ports.js';
import { createBoxMcpServer } from './server.js';

/** Idle servers kept for the next requests (one per request in flight; more are made on demand). */
const IDLE_MAX = 8;

/** A tool call's box API: the one its /mcp request put in `authInfo` (see handle). */
const apiOfRequest: ApiOf = (extra) => {
  const api = extra.authInfo?.extra?.boxApi as BoxApi | undefined;
  if (!api) throw new Error('MCP request without its box API (internal error)');
  return api;
};

/**
 * Streamable HTTP at /mcp (stateless: each POST is answered on its own, no session to
 * keep or leak; GET and DELETE are answered 405 by the route). The route has already run the
 * API's guard (loopback Host, no cross-origin) and authenticated the caller; the tools then
 * run the API's routes in-process as that caller (mcp-routes.ts, http/dispatch.ts), so MCP
 * answers exactly what the API answers that key (access, audit, billing, limits, errors).
 *
 * Building an McpServer costs about a millisecond (the SDK's Server makes its own Ajv, the
 * tools register their schemas), so servers are reused: a request takes an idle one (or a new
 * one), connects it to its own transport, and gives it back once its transport is closed.
 * Nothing of a caller stays on a server: the box API of a request (its caller) travels with that request, as its `authInfo`, to the tool calls it makes.
 */
export class McpHttpService {
  private readonly idle: McpServer[] = [];

  /** `boxApi`: this request's caller's in-process box API (mcp-routes.ts). */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, boxApi: BoxApi): Promise<void> {
    const auth: AuthInfo = { token: '', clientId: 'box-api-key', scopes: [], extra: { boxApi } };
    (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    const server = this.idle.pop() ?? createBoxMcpServer(apiOfRequest);
    // A server-sent stream only when the caller asked for progress; plain JSON otherwise.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
    res.once('close', () => {
      // Closing the transport disconnects the server (and aborts its calls still running).
      void transport.close().then(() => {
        if (!server.isConnected() && this.idle.length < IDLE_MAX) this.idle.push(server);
      });
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
