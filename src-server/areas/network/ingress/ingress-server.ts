import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { AppBase } from '../../../platform/app-context.js';
import type { BoxService } from '../../boxes/module.js';
import type { BoxRecord } from '../../boxes/ports.js';
import { endToEnd } from '../hop-headers.js';
import { madeCert } from '../../../platform/serving/module.js';
import type { ListenerService } from '../listeners/listener-service.js';
import { routeHost, type Missed, type Routed } from './ingress-routing.js';

const RETRIES = 3;
const RETRY_DELAY_MS = 400;
/** The header E2B's proxy reads the traffic access token of a non-public sandbox from. */
const TRAFFIC_TOKEN = 'e2b-traffic-access-token';

/** Names the ingress's https certificate covers (E2B's getHost addresses are `<port>-<id>.box.localhost`). */
const TLS_NAMES = ['box.localhost', '*.box.localhost', 'localhost', '127.0.0.1'];

/**
 * The ingress: an HTTP reverse proxy on its own loopback port that routes by Host header
 * to the host port forwarded to a box's http listener. Traffic wakes a sleeping box and
 * counts as activity for auto-sleep. WebSocket upgrades are relayed as raw bytes.
 * The same port speaks https too (a connection starting with a TLS handshake), with a
 * certificate for `*.box.localhost` from the service's serving CA (`<data dir>/tls/`):
 * E2B's SDKs put `https://` before `getHost(port)` (the desktop stream's URL).
 */
export class Ingress {
  private server: http.Server;
  private tls?: https.Server;
  private front: net.Server;
  private agent = new http.Agent({ keepAlive: true, maxFreeSockets: 16 });
  private sockets = new Set<net.Socket>();
  /**
   * What a box's E2B getHost addresses want (set by the E2B area at wiring; unset, or null for
   * a box that is no sandbox: public, Host kept): `token`, the traffic access token requests
   * must bring (null: public; E2B's `network.allowPublicTraffic`), and `maskHost`, the Host
   * header the box's server gets instead of the request's, `${PORT}` its port (E2B's
   * `network.maskRequestHost`).
   */
  sandboxTraffic?: (boxId: string) => Promise<{ token: string | null; maskHost: string | null } | null>;
  /**
   * Resumes a paused box whose traffic resumes it (E2B's `lifecycle.autoResume`; set by the
   * E2B area at wiring): true when it did. Unset, or false: a paused box answers 503.
   */
  autoResume?: (boxId: string) => Promise<boolean>;

  constructor(
    private app: AppBase,
    private boxes: BoxService,
    private listeners: ListenerService,
  ) {
    this.server = http.createServer((req, res) => void this.handle(req, res).catch((e) => this.fail(res, e)));
    this.server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head).catch(() => socket.destroy()));
    // First byte 0x16: a TLS handshake (https), anything else is plain HTTP.
    this.front = net.createServer((s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => {});
      s.once('data', (first: Buffer) => {
        s.pause();
        s.unshift(first);
        (first[0] === 0x16 && this.tls ? this.tls : this.server).emit('connection', s);
        process.nextTick(() => s.resume());
      });
    });
  }

  get port(): number {
    const a = this.front.address();
    return a && typeof a === 'object' ? a.port : 0;
  }

  /** Listens on 127.0.0.1:port; a taken fixed port falls back to any free one (logged). */
  async listen(port: number) {
    if (!this.tls) {
      try {
        const c = await madeCert(this.app.config.dataDir, TLS_NAMES, 'ingress');
        this.tls = https.createServer({ cert: c.cert, key: c.key }, (req, res) => void this.handle(req, res).catch((e) => this.fail(res, e)));
        this.tls.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head).catch(() => socket.destroy()));
      } catch (e) {
        this.app.log.warn(`ingress: no https (${(e as Error).message})`);
      }
    }
    try {
      await new Promise<void>((resolve, reject) => {
        this.front.once('error', reject);
        this.front.listen(port, '127.0.0.1', () => (this.front.off('error', reject), resolve()));
      });
    } catch (e) {
      if (port === 0) throw e;
      this.app.log.warn(`ingress: port ${port} unavailable (${(e as Error).message}); using a free port`);
      await this.listen(0);
    }
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    return new Promise((resolve) => this.front.close(() => resolve()));
  }

  /** Wakes a sleeping box; throws (with a message for the page) when it cannot run. */
  private async ready(box: BoxRecord): Promise<BoxRecord> {
    const boxes = this.boxes;
    if (box.status === 'paused' && (await this.autoResume?.(box.box_id))) box = (await boxes.get(box.box_id)) ?? box;
    const cur = box.status === 'running' ? box : await boxes.ensureRunning(box, 'exec');
    await boxes.touch(cur.box_id);
    return cur;
  }

  /**
   * The route of a request's Host header; an E2B `getHost` address of a port not published yet
   * publishes it (http). A sandbox made with `allowPublicTraffic: false` answers only requests
   * that bring its traffic access token (checked before anything is published).
   */
  private async route(req: http.IncomingMessage): Promise<(Routed & { host?: string }) | Missed | { denied: string }> {
    const host = req.headers.host;
    const route = await routeHost(this.boxes, this.listeners, host);
    if ('miss' in route) return route;
    let maskHost: string | undefined;
    if ('publish' in route || route.e2b) {
      const traffic = await this.sandboxTraffic?.(route.box.box_id);
      maskHost = traffic?.maskHost ?? undefined;
      const want = traffic?.token;
      const got = req.headers[TRAFFIC_TOKEN];
      if (want && (typeof got !== 'string' || got.length !== want.length || !timingSafeEqual(Buffer.from(got), Buffer.from(want))))
        return {
          denied: `Sandbox ${route.box.box_id} was created with allowPublicTraffic: false: send its traffic access token in the ${TRAFFIC_TOKEN} header.`,
        };
    }
    const masked = (r: Routed) => ({ ...r, host: maskHost?.replaceAll('${PORT}', String(r.listener.guest_port)) });
    if (!('publish' in route)) return masked(route);
    try {
      await this.listeners.create(route.box, { guest_port: route.publish, protocol: 'http' });
    } catch (e) {
      if ((e as { code?: string }).code !== 'already_exists') return { miss: `Publishing port ${route.publish}: ${(e as Error).message}` };
    }
    const again = await routeHost(this.boxes, this.listeners, host);
    if ('publish' in again) return { miss: `Port ${route.publish} could not be published.` };
    return 'miss' in again ? again : masked(again);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const route = await this.route(req);
    if ('miss' in route && route.sandboxGone !== undefined) {
      // E2B's client proxy: 502 and this JSON for a sandbox that is not there (E2B's host.test reads it)
      const body = JSON.stringify({ message: 'The sandbox was not found', sandboxId: route.sandboxGone, code: 502 });
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-box-ingress': 'miss' });
      return void res.end(body);
    }
    if ('denied' in route) return page(res, 403, 'Traffic access token required', route.denied);
    if ('miss' in route) return page(res, 404, 'Nothing published here', route.miss);
    const woke = route.box.status !== 'running';
    try {
      await this.ready(route.box);
    } catch (e) {
      return page(res, 503, `Box ${route.box.name} is not running`, (e as Error).message);
    }
    const { [TRAFFIC_TOKEN]: _token, ...sent } = endToEnd(req.headers);
    const headers = {
      ...sent,
      ...(route.host ? { host: route.host } : {}),
      'x-forwarded-for': req.socket.remoteAddress ?? '',
      'x-forwarded-host': req.headers.host ?? '',
      'x-forwarded-proto': (req.socket as TLSSocket).encrypted ? 'https' : 'http',
    };
    const bodiless = req.method === 'GET' || req.method === 'HEAD';
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.forward(req, res, route.listener.host_port, headers);
      if (outcome === 'done') return;
      // Nothing answered before any byte was sent back: a server that is still starting (or a box just woken).
      if (!bodiless || attempt >= (woke ? RETRIES * 3 : RETRIES)) {
        return page(res, 502, `Box ${route.box.name} is not answering`, `Nothing answered on guest port ${route.listener.guest_port} (${outcome.message}).`);
      }
      await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
    }
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse, hostPort: number, headers: http.OutgoingHttpHeaders): Promise<'done' | Error> {
    return new Promise((resolve) => {
      const up = http.request({ host: '127.0.0.1', port: hostPort, method: req.method, path: req.url, headers, agent: this.agent });
      up.on('response', (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.statusMessage, endToEnd(ur.headers));
        ur.pipe(res);
        ur.on('error', () => res.destroy());
        resolve('done');
      });
      up.on('error', (e) => {
        if (res.headersSent) {
          res.destroy();
          resolve('done');
        } else resolve(e);
      });
      res.on('close', () => res.writableFinished || up.destroy());
      if (req.method === 'GET' || req.method === 'HEAD') up.end();
      else req.pipe(up);
    });
  }

  private async upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
    socket.on('error', () => {});
    const route = await this.route(req);
    if ('denied' in route) return socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    if ('miss' in route) return socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    await this.ready(route.box);
    const up = net.connect(route.listener.host_port, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        if (req.rawHeaders[i]!.toLowerCase() === 'host' && route.host) lines.push(`Host: ${route.host}`);
        else if (req.rawHeaders[i]!.toLowerCase() !== TRAFFIC_TOKEN) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on('error', () => socket.destroy());
    socket.on('close', () => up.destroy());
  }

  private fail(res: http.ServerResponse, e: unknown) {
    this.app.log.error('ingress', e);
    if (!res.headersSent) page(res, 500, 'Ingress error', (e as Error).message);
    else res.destroy();
  }
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: http.ServerResponse, status: number, title: string, message: string) {
  const body = `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><h1>${esc(title)}</h1><p>${esc(message)}</p>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-box-ingress': 'miss' });
  res.end(body);
}
