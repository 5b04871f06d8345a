import type { RouteRegistrar } from '../../platform/http/route.js';
import type { IncomingMessage } from 'node:http';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { OVERRIDE_HEADER } from '@box/contract/boxes';
import type { Principal } from '../../kernel/principal.js';
import { ApiError, badRequest } from '../../platform/http/api-errors.js';
import type { Dispatch } from '../../platform/http/route.js';
import { apiCallError, type BoxApi } from './ports.js';
import type { McpHttpService } from './http-service.js';
import { mcpToolList } from './tool-list.js';

/** MCP requests may carry whole files (box_write_file takes up to 16 MiB, base64 grows it). */
const MCP_BODY_LIMIT = 24 * 1024 * 1024;

/**
 * /mcp: the MCP server over streamable HTTP, behind the API's own pipeline (the local
 * guard, an organization API key, the concurrency limit; billing is each tool call's, below).
 * POST carries JSON-RPC (an initialize opens a session, http-service.ts); GET (a session's
 * server-sent stream) and DELETE (its end) need Mcp-Session-Id, and are answered 405
 * without one after the same checks, as the MCP transport allows.
 */
export function mcpRoutes(r: RouteRegistrar, mcp: McpHttpService) {
  r.add({
    method: 'get',
    path: '/v1/mcp/tools',
    area: 'box',
    tag: 'mcp',
    summary: "The tools of Box's MCP server (`box mcp`, /mcp) with their descriptions, as an MCP client's tools/list shows them",
    billingExempt: true,
    handler: async () => ({ data: await mcpToolList() }),
  });
  r.add({
    method: 'post',
    path: '/mcp',
    area: 'box',
    tag: 'mcp',
    summary: 'MCP (streamable HTTP): JSON-RPC requests to the box tools; answers JSON or a server-sent stream with progress',
    plain: true,
    idempotent: false,
    // Each tool call is billed as its own operation (402 as a tool error): the session stays usable.
    billingExempt: true,
    bodyLimitBytes: MCP_BODY_LIMIT,
    handler: async ({ auth, req, res, body }) => {
      checkMcpPost(req, body);
      await mcp.handle(req, res, body, inProcessBoxApi(r.dispatcher, auth, req), auth);
    },
  });
  for (const method of ['get', 'delete'] as const) {
    r.add({
      method,
      path: '/mcp',
      area: 'box',
      tag: 'mcp',
      summary:
        method === 'get'
          ? "MCP (streamable HTTP): a session's stream of server notifications (resource updates), with Mcp-Session-Id"
          : 'MCP (streamable HTTP): end a session, with Mcp-Session-Id',
      billingExempt: true,
      handler: async ({ auth, req, res }) => {
        const sid = req.headers['mcp-session-id'];
        if (typeof sid === 'string') return void (await mcp.sessionRequest(req, res, sid, inProcessBoxApi(r.dispatcher, auth, req), auth));
        throw new ApiError(
          405,
          'invalid_request_error',
          `${method.toUpperCase()} /mcp without Mcp-Session-Id is not used: open a session with an initialize request (POST /mcp), or send JSON-RPC with POST /mcp alone.`,
          { code: 'method_not_allowed', headers: { Allow: 'POST' } },
        );
      },
    });
  }
}

/**
 * What the MCP transport would refuse with a JSON-RPC error body is refused here first, in
 * the API's envelope naming what is wrong (the transport checks the same, in this order).
 */
function checkMcpPost(req: IncomingMessage, body: unknown) {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new ApiError(406, 'invalid_request_error', 'POST /mcp answers JSON or a server-sent stream: send "Accept: application/json, text/event-stream".', {
      param: 'Accept',
      code: 'not_acceptable',
    });
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(415, 'invalid_request_error', 'POST /mcp takes JSON-RPC: send "Content-Type: application/json".', {
      param: 'Content-Type',
      code: 'unsupported_media_type',
    });
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > 100 || !messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)) {
    throw badRequest('The body must be one JSON-RPC 2.0 message of MCP, or a batch of 1 to 100 of them.', 'body');
  }
}

/**
 * The box API of one /mcp request: every tool call runs the service's own route in-process
 * (http/dispatch.ts), for the caller the request authenticated, through the same pipeline
 * as over HTTP after authentication (organization scope, billing, the concurrency limit,
 * validation, the handler's access checks and audit). An operator's X-Box-Override-Reason
 * on the /mcp request goes with each call, as it would with each HTTP request.
 */
function inProcessBoxApi(dispatch: Dispatch, auth: Principal, req: IncomingMessage): BoxApi {
  const override = req.headers[OVERRIDE_HEADER.toLowerCase()];
  const headers: Record<string, string> = typeof override === 'string' ? { [OVERRIDE_HEADER]: override } : {};
  return {
    async send(call) {
      const res = await dispatch.send(auth, { ...call, headers: { ...headers, ...call.headers } });
      if (res.ok) return res;
      throw await apiCallError(res);
    },
  };
}
