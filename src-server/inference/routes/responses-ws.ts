import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { RouteApp } from '../../app-context.js';
import { ResponsesBody } from '../../contract/inference.js';
import { ResponsesWsClientEvent, ResponsesWsServerEvent } from '../../contract/inference-ws.js';
import { invalid } from '../../core/domain-errors.js';
import type { Principal } from '../../core/principal.js';
import { errorBody } from '../../http/error-handler.js';
import type { RouteRegistrar } from '../../http/route.js';
import { parseOr400 } from '../../http/validate.js';
import { responsesToNative } from '../adapters/responses.js';
import { ResponsesStream } from '../adapters/responses-stream.js';
import type { InferenceService } from '../inference-service.js';
import { INFERENCE_BODY_LIMIT } from './limits.js';
import { ConnectionCache, previousNotFound } from '../ws-cache.js';

/** A connection lasts at most this long (OpenAI's limit); then `websocket_connection_limit_reached` and a close. */
const MAX_CONNECTION_MS = 60 * 60_000;
/** `response.create` events waiting behind the one running (they run in order). */
const MAX_QUEUED = 16;

type Answer = Awaited<ReturnType<InferenceService['runSync']>>;

/**
 * WebSocket mode of the Responses API (beyond the spec; Open Responses / OpenAI's "WebSocket
 * mode"): `GET /v1/responses` with `Upgrade: websocket`, authenticated and guarded like the
 * HTTP route (http/upgrade.ts). Each client message is a `response.create` event whose other
 * fields are the body of `POST /v1/responses` (`stream` is implicit, `background` refused);
 * the server answers with the same events as the HTTP stream, one JSON event per message,
 * and responses run one after another in the order sent. `previous_response_id` continues
 * from a response of this connection (also one made with `store: false`, which is answered
 * and charged but never stored) or from a stored one of the organization; an unknown id
 * (an unstored response after a reconnect) is an `error` event with code
 * `previous_response_not_found`. A continuation that fails evicts its previous response
 * from the connection's cache. Every turn is billed and counted in the organization's
 * stream pool like an HTTP stream.
 */
export function responsesWsRoutes(r: RouteRegistrar, svc: InferenceService) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: INFERENCE_BODY_LIMIT, perMessageDeflate: false });
  r.upgrade({
    path: '/v1/responses',
    area: 'inference',
    summary: 'WebSocket mode: response.create events in, Responses stream events out; per-connection continuation (store=false too)',
    messages: { client: ResponsesWsClientEvent, server: ResponsesWsServerEvent },
    handle: ({ req, socket, head, auth, app, admit }) => {
      wss.handleUpgrade(req, socket, head, (ws) => new Session(ws, svc, auth, app, admit));
    },
  });
}

class Session {
  private cache = new ConnectionCache();
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;
  private gone = new AbortController();

  constructor(
    private ws: WebSocket,
    private svc: InferenceService,
    private auth: Principal,
    private app: RouteApp,
    private admit: () => Promise<() => void>,
  ) {
    const limit = setTimeout(() => {
      this.send({
        type: 'error',
        status: 400,
        error: wsError('websocket_connection_limit_reached', 'The connection reached its 60-minute limit: open a new one.'),
      });
      ws.close(1000, 'connection limit reached');
    }, MAX_CONNECTION_MS).unref();
    ws.on('message', (data, isBinary) => this.received(data, isBinary));
    ws.on('close', () => {
      clearTimeout(limit);
      this.gone.abort();
    });
    ws.on('error', () => ws.terminate());
  }

  private received(data: RawData, isBinary: boolean) {
    if (this.waiting >= MAX_QUEUED) {
      this.fail(invalid(`At most ${MAX_QUEUED} response.create events may wait on one connection; wait for a response to finish.`, null));
      return;
    }
    this.waiting++;
    this.queue = this.queue.then(async () => {
      this.waiting--;
      if (this.gone.signal.aborted) return;
      await this.turn(data, isBinary).catch((e: unknown) => this.fail(e));
    });
  }

  private async turn(data: RawData, isBinary: boolean) {
    const { type: _type, stream: _stream, store, ...rest } = parseEvent(data, isBinary);
    const prevId = typeof rest.previous_response_id === 'string' ? rest.previous_response_id : null;
    try {
      if (rest.background === true) throw invalid('background is not supported in WebSocket mode: use POST /v1/responses.', 'background');
      if (store !== undefined && typeof store !== 'boolean') throw invalid('store must be a boolean.', 'store');
      const body = parseOr400(ResponsesBody, { ...rest, background: false });
      const previous = prevId ? (this.cache.get(prevId) ?? (await this.stored(prevId))) : undefined;
      const p = responsesToNative(body, previous);
      p.stream = true;
      if (store === false) {
        p.store = false;
        p.echo.store = false;
      }
      const release = await this.admit();
      try {
        this.cache.add(await this.run(p));
      } finally {
        release();
      }
    } catch (e) {
      if (prevId) this.cache.evict(prevId); // a failed continuation is not offered again
      throw e;
    }
  }

  private async run(p: ReturnType<typeof responsesToNative>): Promise<Answer> {
    const writer = new ResponsesStream();
    const stored = await this.svc.runSync('responses', p, this.auth, this.gone.signal, {
      started: (r) => this.frames(writer.start(r)),
      onDelta: (d) => this.frames(writer.delta(d)),
    });
    this.frames(writer.finish(stored));
    return stored;
  }

  /** A stored response of the caller's organization, finished, or `previous_response_not_found`. */
  private async stored(id: string): Promise<Answer> {
    const prev = await this.svc.get(id);
    if (!prev || prev.orgId !== this.auth.orgId || !prev.result) throw previousNotFound(id);
    return prev;
  }

  /** The writer's server-sent-event frames, one WebSocket message per event (its `data`). */
  private frames(sse: string) {
    if (this.ws.readyState !== this.ws.OPEN) return;
    for (const f of sse.split('\n\n')) {
      const at = f.indexOf('data: ');
      if (at >= 0) this.ws.send(f.slice(at + 6));
    }
  }

  private send(event: unknown) {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(event));
  }

  private fail(e: unknown) {
    const r = errorBody(e, this.app);
    const err = (r.body as { error?: Record<string, unknown> }).error ?? {};
    this.send({ type: 'error', status: r.status, error: { type: err.type, code: err.code ?? null, message: err.message, param: err.param ?? null } });
  }
}

function parseEvent(data: RawData, isBinary: boolean): Record<string, unknown> {
  if (isBinary) throw invalid('Send response.create events as text messages (JSON).', null);
  let event: unknown;
  try {
    event = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
  } catch {
    throw invalid('The message is not valid JSON.', null);
  }
  if (!event || typeof event !== 'object' || Array.isArray(event)) throw invalid('The message must be a JSON object.', null);
  const type = (event as { type?: unknown }).type;
  if (type !== 'response.create') throw invalid(`Unknown event type ${JSON.stringify(type)}: send response.create.`, 'type');
  return event as Record<string, unknown>;
}

const wsError = (code: string, message: string) => ({ type: 'invalid_request_error', code, message, param: null });
