import type { Express } from 'express';
import fs from 'node:fs';
import http, { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { LOCAL_CONTEXT, contextsPath, readContexts } from '../../../sdk/typescript/src/contexts.js';
import { PinMismatchError, pinnedAgent, probeCertificate, tlsRefusal } from '../../../sdk/typescript/src/tls.js';
import type { AppContext } from '../app-context.js';
import { ApiError } from './api-errors.js';
import { authenticate } from './auth.js';
import { errorBody, pathOf, sendError } from './error-handler.js';
import { guardError } from './guard.js';
import { isLoopback } from '../serving/ports.js';
import { CONTEXT_COOKIE, cookieOf, mountContextRoutes, type ContextStore, type Target } from './context-switch.js';

/**
 * The app against a remote service (issue 39, docs/architecture.md "Serving a network").
 * The web UI stays same-origin with its local service and no remote key enters a page: the
 * sidebar's switcher sets an HttpOnly cookie naming a context of the CLI's store
 * (`~/.box-desktop/contexts.json`), and a request that carries a valid local UI session and
 * that cookie is forwarded here, `/v1/*`, `/e2b/*` and WebSocket upgrades alike, to the
 * context's URL with its stored key, over an agent that accepts only the pinned certificate
 * (the handshake refuses another one before the key is written). The browser's Cookie,
 * Origin, Referer and Sec-Fetch headers stay here. Only a service on loopback without TLS
 * (the one the desktop app and `npm start` run) does this: a team server never lends out
 * its operator's contexts.
 */

const FORWARDED = /^\/(v1|e2b)(\/|$|\?)/;
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'cookie',
  'origin',
  'referer',
  'authorization',
  'x-api-key',
]);

interface ContextProxy {
  /** Forwards the request when it goes to a selected context, else hands it to `local` (the local service's). */
  http(req: IncomingMessage, res: ServerResponse, local: () => void): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, local: () => void): void;
  /** `GET /ui/contexts`, `POST /ui/contexts/select` (the switcher's; not part of the /v1 API). */
  mount(app: Express): void;
  closeAll(): void;
}

/** The CLI's store, read again when the file changes (`box context add|rm` while the app runs). */
function storeReader(): ContextStore {
  let seen: { stamp: string; data: ReturnType<typeof readContexts> } | undefined;
  return () => {
    let stamp = 'none';
    try {
      const st = fs.statSync(contextsPath());
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      // no file: no contexts
    }
    if (seen?.stamp !== stamp) seen = { stamp, data: readContexts() };
    return seen.data;
  };
}

export function contextProxy(ctx: AppContext): ContextProxy {
  const enabled = !ctx.config.tls && isLoopback(ctx.config.host);
  const store = storeReader();
  const agents = new Map<string, http.Agent>();
  const live = new Set<Duplex>();

  const targetNamed = (name: string | undefined): Target | undefined => {
    if (!enabled || !name || name === LOCAL_CONTEXT) return undefined;
    const c = store().contexts[name];
    if (!c) return undefined;
    const url = new URL(c.url);
    const id = `${name}\n${c.url}\n${c.tls_fingerprint ?? ''}`;
    let agent = agents.get(id);
    if (!agent) {
      agent =
        url.protocol === 'https:'
          ? pinnedAgent({ fingerprint: c.tls_fingerprint ?? '', ...(c.tls_ca ? { ca: c.tls_ca } : {}) })
          : new http.Agent({ keepAlive: true });
      agents.set(id, agent);
    }
    return { name, context: c, url, agent };
  };

  /**
   * The context this request may go to, from what the request itself says (no store read):
   * the switcher's cookie names a context, and the request carries no key of its own.
   */
  const candidate = (req: IncomingMessage): string | undefined => {
    if (!enabled || !FORWARDED.test(req.url ?? '')) return undefined;
    const name = cookieOf(req, CONTEXT_COOKIE);
    if (!name || name === LOCAL_CONTEXT || req.headers.authorization || req.headers['x-api-key']) return undefined;
    return name;
  };
  /** The context this request goes to: a valid local UI session (not a key) and the switcher's cookie. */
  const routeOf = async (req: IncomingMessage, name: string): Promise<Target | undefined> => {
    const refused = guardError(req, ctx.config);
    if (refused) throw refused;
    const who = await authenticate(req, ctx.repos);
    if (who.via !== 'session') return undefined;
    const t = targetNamed(name);
    if (!t)
      throw new ApiError(409, 'conflict_error', `The context "${name}" is no longer in ${contextsPath()}: pick another service in the sidebar.`, {
        code: 'context_missing',
      });
    return t;
  };

  const outgoing = (req: IncomingMessage, t: Target, extra: Record<string, string> = {}) => {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k) && !k.startsWith('sec-fetch-')) headers[k] = v;
    headers.host = t.url.host;
    headers.authorization = `Bearer ${t.context.api_key}`;
    const lib = t.url.protocol === 'https:' ? https : http;
    return lib.request({
      protocol: t.url.protocol,
      hostname: t.url.hostname.replace(/^\[|\]$/g, ''),
      port: t.url.port || (t.url.protocol === 'https:' ? 443 : 80),
      path: req.url,
      method: req.method,
      headers: { ...headers, ...extra },
      agent: t.agent,
    });
  };

  /** The error a failed forward answers: the pin refused (naming both fingerprints), or the service out of reach. */
  const failure = async (t: Target, e: NodeJS.ErrnoException): Promise<ApiError> => {
    if (t.url.protocol === 'https:' && tlsRefusal(e)) {
      const presented = await probeCertificate(t.url.origin, 5000).then(
        (p) => p.fingerprint,
        () => undefined,
      );
      const pin = new PinMismatchError(
        t.url.origin,
        t.context.tls_fingerprint ?? '',
        presented,
        `remove the context and add it again (\`npx box context rm ${t.name}\`, \`npx box context add ${t.name} ${t.url.origin}\`)`,
      );
      return new ApiError(502, 'server_error', `Refused to talk to context "${t.name}": ${pin.message}`, { code: 'context_certificate_mismatch' });
    }
    return new ApiError(502, 'server_error', `The service of context "${t.name}" (${t.url.origin}) is not reachable (${e.code ?? e.message}).`, {
      code: 'context_unreachable',
    });
  };

  const forward = (req: IncomingMessage, res: ServerResponse, t: Target) => {
    const out = outgoing(req, t);
    out.on('response', (r) => {
      const headers: string[] = [];
      for (let i = 0; i < r.rawHeaders.length; i += 2) {
        const k = r.rawHeaders[i]!.toLowerCase();
        if (HOP.has(k) || k === 'set-cookie') continue;
        headers.push(r.rawHeaders[i]!, r.rawHeaders[i + 1]!);
      }
      res.writeHead(r.statusCode ?? 502, r.statusMessage, headers);
      r.pipe(res);
    });
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (res.headersSent) return res.destroy();
      void failure(t, e).then((err) => sendError(req, res, err, ctx));
    });
    // a closed page (an EventSource, a download) ends the remote request too
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const refuseUpgrade = (socket: Duplex, req: IncomingMessage, e: unknown) => {
    const r = errorBody(e, ctx, { method: req.method, path: pathOf(req) });
    const text = JSON.stringify(r.body);
    socket.end(
      `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  };

  const upgradeTo = (req: IncomingMessage, socket: Duplex, head: Buffer, t: Target) => {
    const keep: Record<string, string> = {};
    for (const k of ['upgrade', 'connection']) if (typeof req.headers[k] === 'string') keep[k] = req.headers[k];
    const out = outgoing(req, t, keep);
    out.on('upgrade', (r, up, upHead) => {
      const lines = [`HTTP/1.1 101 ${r.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i < r.rawHeaders.length; i += 2) lines.push(`${r.rawHeaders[i]}: ${r.rawHeaders[i + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upHead.length) socket.write(upHead);
      if (head.length) up.write(head);
      live.add(socket);
      const end = () => {
        live.delete(socket);
        socket.destroy();
        up.destroy();
      };
      up.on('error', end).on('close', end);
      socket.on('close', end);
      up.pipe(socket);
      socket.pipe(up);
    });
    out.on('response', (r) => {
      // refused by the remote (401, 403, 404...): its answer, as it gave it
      const lines = [`HTTP/1.1 ${r.statusCode} ${r.statusMessage ?? ''}`];
      for (let i = 0; i < r.rawHeaders.length; i += 2) if (!HOP.has(r.rawHeaders[i]!.toLowerCase())) lines.push(`${r.rawHeaders[i]}: ${r.rawHeaders[i + 1]}`);
      lines.push('Connection: close');
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      r.pipe(socket);
    });
    out.on('error', (e: NodeJS.ErrnoException) => {
      void failure(t, e).then((err) => refuseUpgrade(socket, req, err));
    });
    out.end();
  };

  return {
    http(req, res, local) {
      const name = candidate(req);
      if (!name) return local();
      routeOf(req, name).then(
        (t) => (t ? forward(req, res, t) : local()),
        (e: unknown) => sendError(req, res, e, ctx),
      );
    },

    upgrade(req, socket, head, local) {
      const name = candidate(req);
      if (!name) return local();
      socket.on('error', () => socket.destroy());
      routeOf(req, name).then(
        (t) => (t ? upgradeTo(req, socket, head, t) : local()),
        (e: unknown) => refuseUpgrade(socket, req, e),
      );
    },

    mount: (app) => mountContextRoutes(app, ctx, { enabled, store, targetNamed, outgoing, failure }),

    closeAll() {
      for (const s of live) s.destroy();
      for (const a of agents.values()) a.destroy();
    },
  };
}
