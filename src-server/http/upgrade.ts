import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppContext } from '../app-context.js';
import { authenticate } from './auth.js';
import { ApiError } from './api-errors.js';
import { errorBody, pathOf, styledErrorBody } from './error-handler.js';
import { guardError } from './guard.js';
import type { Area, UpgradeSpec } from './route.js';

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => unknown;

/**
 * The `upgrade` listener of a server serving `areas`, and `closeAll` (the server's close
 * does not end upgraded sockets: the service's close calls it first).
 */
export function upgradeListener(specs: UpgradeSpec[], ctx: AppContext, areas: Area[]): { listener: UpgradeListener; closeAll(): void } {
  const byPath = new Map(specs.filter((s) => areas.includes(s.area)).map((s) => [s.path, s]));
  const live = new Set<Duplex>();
  const listener: UpgradeListener = async (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const spec = byPath.get((req.url ?? '').split('?')[0]!);
    try {
      if (!spec || req.method !== 'GET') {
        throw new ApiError(404, 'invalid_request_error', `No WebSocket endpoint at ${req.method} ${pathOf(req)}.`, { code: 'not_found' });
      }
      const refused = guardError(req, ctx.config);
      if (refused) throw refused;
      const viaBox = spec.area === 'inference' ? await ctx.boxPrincipal(req) : undefined;
      const auth = viaBox ?? (await authenticate(req as Parameters<typeof authenticate>[0], ctx.repos));
      await ctx.billing.check(auth.orgId);
      const admit = async () => {
        await ctx.billing.check(auth.orgId);
        return ctx.limiter.acquire(auth.orgId, 'stream');
      };
      live.add(socket);
      socket.once('close', () => live.delete(socket));
      await spec.handle({ req, socket, head, auth, app: ctx, admit });
    } catch (e) {
      refuse(socket, req, e, ctx);
    }
  };
  return {
    listener,
    closeAll: () => {
      for (const s of live) s.destroy();
    },
  };
}

function refuse(socket: Duplex, req: IncomingMessage, e: unknown, ctx: AppContext) {
  const r = errorBody(e, ctx, { method: req.method, path: pathOf(req) });
  const text = JSON.stringify(styledErrorBody(req, r));
  const headers = Object.entries(r.headers)
    .filter(([k]) => k.toLowerCase() !== 'connection')
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n${headers}Connection: close\r\n\r\n${text}`,
  );
}
