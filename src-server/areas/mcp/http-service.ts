import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { notFound } from '../../kernel/domain-errors.js';
import type { Principal } from '../../kernel/principal.js';
import { forgetLogLevel } from './logging.js';
import type { ApiOf, BoxApi } from './ports.js';
import { createBoxMcpServer } from './server.js';
import { McpSessions } from './sessions.js';
import { closeSubscriptions } from './subscriptions.js';

/** Idle servers kept for the next stateless requests (one per request in flight; more are made on demand). */
const IDLE_MAX = 8;
const SESSION_HEADER = 'mcp-session-id';

/** A tool call's box API: the one its /mcp request put in `authInfo` (see withBoxApi). */
const apiOfRequest: ApiOf = (extra) => {
  const api = extra.authInfo?.extra?.boxApi as BoxApi | undefined;
  if (!api) throw new Error('MCP request without its box API (internal error)');
  return api;
};

/** The box API of this request travels with it, as its `authInfo`, to the calls it makes. */
function withBoxApi(req: IncomingMessage, boxApi: BoxApi) {
  const auth: AuthInfo = { token: '', clientId: 'box-api-key', scopes: [], extra: { boxApi } };
  (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
}

/**
 * Streamable HTTP at /mcp. The route has already run the API's guard (loopback Host, no
 * cross-origin) and authenticated the caller; the tools then run the API's routes
 * in-process as that caller (mcp-routes.ts, http/dispatch.ts), so MCP answers exactly what
 * the API answers that key (access, audit, billing, limits, errors).
 *
 * Two ways to talk to it:
 *  - sessions: an `initialize` without Mcp-Session-Id opens one (sessions.ts): its own
 *    server, its log level, its resource subscriptions, a GET stream for notifications that
 *    belong to no request (notifications/resources/updated), DELETE to end it. A session
 *    answers only the key that opened it;
 *  - stateless: any other POST without Mcp-Session-Id is answered on its own. Building an
 *    McpServer costs about a millisecond, so these servers are reused: a request takes an
 *    idle one (or a new one), and gives it back once its transport is closed, with nothing
 *    of its caller left on it (log level, subscriptions).
 */
export class McpHttpService {
  private readonly idle: McpServer[] = [];
  private readonly sessions = new McpSessions();

  /** POST /mcp. `boxApi`: this request's caller's in-process box API (mcp-routes.ts). */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, boxApi: BoxApi, caller: Principal): Promise<void> {
    withBoxApi(req, boxApi);
    const sid = req.headers[SESSION_HEADER];
    if (typeof sid === 'string') return this.session(sid, caller).transport.handleRequest(req, res, body);
    if (isInitializeRequest(body)) return this.open(req, res, body, caller);
    return this.stateless(req, res, body);
  }

  /** GET /mcp (the session's stream of notifications) and DELETE /mcp (its end), with Mcp-Session-Id. */
  async sessionRequest(req: IncomingMessage, res: ServerResponse, sid: string, boxApi: BoxApi, caller: Principal): Promise<void> {
    withBoxApi(req, boxApi);
    const s = this.session(sid, caller);
    if (req.method === 'GET') this.sessions.streamOpened(s, res);
    await s.transport.handleRequest(req, res);
  }

  async close() {
    await this.sessions.closeAll();
  }

  private session(sid: string, caller: Principal) {
    const s = this.sessions.get(sid, caller.key.id);
    if (!s)
      throw notFound(
        `No MCP session ${sid} for this key (it ended or expired): send initialize again without Mcp-Session-Id.`,
        'session_not_found',
        'Mcp-Session-Id',
      );
    return s;
  }

  private async open(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Principal) {
    const server = createBoxMcpServer(apiOfRequest);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => this.sessions.add({ id, server, transport, keyId: caller.key.id, orgId: caller.orgId }),
      onsessionclosed: (id) => void this.sessions.end(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) void this.sessions.end(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private async stateless(req: IncomingMessage, res: ServerResponse, body: unknown) {
    const server = this.idle.pop() ?? createBoxMcpServer(apiOfRequest);
    // A server-sent stream only when the caller asked for progress; plain JSON otherwise.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
    res.once('close', () => {
      // Closing the transport disconnects the server (and aborts its calls still running).
      void transport.close().then(() => {
        closeSubscriptions(server);
        forgetLogLevel(server);
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
