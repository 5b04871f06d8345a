import type { RouteRegistrar } from '../http/route.js';
import type { IncomingMessage } from 'node:http';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { BoxIdParams } from '../contract/boxes.js';
import { ExecBody } from '../contract/exec.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { ExecService } from '../boxes/module.js';
import { errorBody } from '../http/error-handler.js';
import { ApiError, badRequest } from '../http/api-errors.js';
import { parseOr400 } from '../http/validate.js';
import { ApiCallError, type ApiErrorEnvelope, type BoxApi } from './ports.js';
import type { McpHttpService } from './http-service.js';

/** MCP requests may carry whole files (box_write_file takes up to 16 MiB, base64 grows it). */
const MCP_BODY_LIMIT = 24 * 1024 * 1024;

/**
 * /mcp: the MCP server over streamable HTTP, behind the API's own pipeline (the local
 * guard, an organization API key, billing, the concurrency limit). POST carries JSON-RPC;
 * GET and DELETE (a server-sent stream of its own, a session's end) are answered 405 after
 * the same checks, as the MCP transport allows a server without sessions to: clients then
 * carry on with POSTs alone.
 */
export function mcpRoutes(r: RouteRegistrar, mcp: McpHttpService, svc: { execs: ExecService; access: BoxAccess }) {
  r.add({
    method: 'post',
    path: '/mcp',
    area: 'box',
    tag: 'mcp',
    summary: 'MCP (streamable HTTP): JSON-RPC requests to the box tools; answers JSON or a server-sent stream with progress',
    plain: true,
    idempotent: false,
    bodyLimitBytes: MCP_BODY_LIMIT,
    handler: async ({ app, auth, req, res, body }) => {
      checkMcpPost(req, body);
      // box_exec runs in-process, checked and started exactly as POST /v1/boxes/{id}/exec does.
      const exec: BoxApi['exec'] = async (boxId, execBody, onEvent, signal) => {
        let session;
        try {
          const box = svc.access.boxFor(req, auth, parseOr400(BoxIdParams, { box_id: boxId }).box_id, 'exec');
          session = await svc.execs.start(box, parseOr400(ExecBody, execBody));
        } catch (e) {
          const { status, body: envelope } = errorBody(e, app);
          throw new ApiCallError(status, (envelope as { error: ApiErrorEnvelope }).error);
        }
        await new Promise<void>((resolve) => {
          let detach = () => {};
          const stop = () => {
            detach();
            resolve();
          };
          detach = session.attach((e) => {
            onEvent(e);
            if (e.type === 'exit') queueMicrotask(stop);
          });
          signal?.addEventListener('abort', stop, { once: true });
        });
      };
      await mcp.handle(req, res, body, exec);
    },
  });
  for (const method of ['get', 'delete'] as const) {
    r.add({
      method,
      path: '/mcp',
      area: 'box',
      tag: 'mcp',
      summary: 'MCP (streamable HTTP): not used by this server, which keeps no sessions (405)',
      handler: () => {
        throw new ApiError(
          405,
          'invalid_request_error',
          `${method.toUpperCase()} /mcp is not used: this MCP server keeps no sessions; send JSON-RPC with POST /mcp.`,
          {
            code: 'method_not_allowed',
            headers: { Allow: 'POST' },
          },
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
