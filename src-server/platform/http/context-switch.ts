import express, { type Express } from 'express';
import type http from 'node:http';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { LOCAL_CONTEXT, contextsPath } from '../../../sdk/typescript/src/contexts.js';
import type { AppContext } from '../app-context.js';
import { ApiError } from './api-errors.js';
import { authenticate } from './auth.js';
import type { BoxContext, readContexts } from '../../../sdk/typescript/src/contexts.js';

/** The switcher's HttpOnly cookie: the context the web UI's requests go to (absent: the local service). */
export const CONTEXT_COOKIE = 'box_context';

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/** The CLI's store, as last read. */
export type ContextStore = () => ReturnType<typeof readContexts>;

/** A saved context the web UI's requests go to, with the agent that pins its certificate. */
export interface Target {
  name: string;
  context: BoxContext;
  url: URL;
  agent: http.Agent;
}

const SelectBody = z.object({ name: z.string().trim().min(1, 'name: the context to use (or "local")') });

interface Deps {
  enabled: boolean;
  store: ContextStore;
  targetNamed(name: string | undefined): Target | undefined;
  outgoing(req: IncomingMessage, t: Target): http.ClientRequest;
  failure(t: Target, e: NodeJS.ErrnoException): Promise<ApiError>;
}

/**
 * The sidebar's service switcher (not part of the /v1 API; a signed-in browser session only):
 * `GET /ui/contexts` lists the local service and the CLI's saved contexts (names, URLs,
 * pinned fingerprints, never a key); `POST /ui/contexts/select {name}` checks the service
 * (`GET /v1/whoami` over the pinned certificate with the stored key) and only then sets the
 * HttpOnly cookie serving/context-proxy.ts forwards by.
 */
export function mountContextRoutes(app: Express, ctx: AppContext, { enabled, store, targetNamed, outgoing, failure }: Deps) {
  const session = async (req: IncomingMessage) => {
    const who = await authenticate(req, ctx.repos);
    if (who.via !== 'session')
      throw new ApiError(403, 'permission_error', "The service switcher is the web UI's (a signed-in browser session).", { code: 'session_required' });
  };
  const selected = (req: IncomingMessage) => {
    const name = cookieOf(req, CONTEXT_COOKIE);
    return name && targetNamed(name) ? name : LOCAL_CONTEXT;
  };
  const list = (req: IncomingMessage) => {
    const data = enabled ? store() : { current: null, contexts: {} };
    return {
      enabled,
      selected: selected(req),
      cli_current: data.current ?? LOCAL_CONTEXT,
      file: contextsPath(),
      contexts: [
        { name: LOCAL_CONTEXT, url: ctx.baseUrl(), tls_fingerprint: null as string | null },
        ...Object.entries(data.contexts)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, c]) => ({ name, url: c.url, tls_fingerprint: c.tls_fingerprint })),
      ],
    };
  };
  app.get('/ui/contexts', (req, res, next) => {
    session(req).then(() => void res.set('Cache-Control', 'no-store').json(list(req)), next);
  });
  // Switching checks the service first (GET /v1/whoami, pinned): a wrong certificate or a key it refuses leaves the app where it was.
  app.post('/ui/contexts/select', express.json({ limit: '4kb' }), (req, res, next) => {
    void (async () => {
      await session(req);
      const parsed = SelectBody.safeParse(req.body ?? {});
      if (!parsed.success) throw new ApiError(400, 'invalid_request_error', parsed.error.issues[0]!.message, { param: 'name' });
      const name = parsed.data.name;
      const opts = { httpOnly: true, sameSite: 'strict' as const, path: '/' };
      if (name === LOCAL_CONTEXT) {
        res.clearCookie(CONTEXT_COOKIE, opts).json({ selected: LOCAL_CONTEXT, org_name: null });
        return;
      }
      if (!enabled)
        throw new ApiError(409, 'conflict_error', 'Only the local service (on loopback) switches to other services.', { code: 'contexts_disabled' });
      const t = targetNamed(name);
      if (!t) {
        const known = [LOCAL_CONTEXT, ...Object.keys(store().contexts)].join(', ');
        throw new ApiError(404, 'not_found_error', `No context "${name}" (known: ${known}); \`npx box context add\` adds one.`, {
          param: 'name',
          code: 'context_not_found',
        });
      }
      const me = await new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        const probe = outgoing({ url: '/v1/whoami', method: 'GET', headers: {} } as IncomingMessage, t);
        probe.setTimeout(15_000, () => probe.destroy(Object.assign(new Error('no answer within 15 s'), { code: 'ETIMEDOUT' })));
        probe.on('response', (r) => {
          let text = '';
          r.setEncoding('utf8').on('data', (c: string) => (text += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body: (JSON.parse(text || '{}') as Record<string, unknown>) ?? {} }));
          r.on('error', reject);
        });
        probe.on('error', (e: NodeJS.ErrnoException) => void failure(t, e).then(reject));
        probe.end();
      });
      if (me.status !== 200) {
        const msg = (me.body.error as { message?: string } | undefined)?.message ?? `HTTP ${me.status}`;
        throw new ApiError(502, 'server_error', `Context "${name}" (${t.url.origin}) refused its stored key: ${msg}`, { code: 'context_key_refused' });
      }
      res.cookie(CONTEXT_COOKIE, name, opts).json({ selected: name, org_name: me.body.org_name ?? null });
    })().catch(next);
  });
}
