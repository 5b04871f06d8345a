import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KEEP_ALIVE_MS } from '../../../platform/serving/keep-alive.js';
import { openTunnel } from './connect-tunnel.js';
import { forwardHttp } from './http-forward.js';
import { rawReply, type ProxyDeps } from './proxy-deps.js';

/**
 * One box's egress proxy: a loopback HTTP forward proxy whose port identifies the box
 * (the VM's guestfwd connects to it). `boxId` may be assigned after listening, so ports
 * can be bound ahead of need and handed out synchronously.
 */
export class BoxProxy {
  boxId: string | undefined;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();

  constructor(private deps: ProxyDeps) {
    this.server = http.createServer({ requestTimeout: 0 }, (req, res) => {
      if (!this.boxId) {
        req.resume();
        res.writeHead(503, { 'content-type': 'text/plain' }).end('This proxy port is not assigned to a box.\n');
        return;
      }
      try {
        forwardHttp(this.deps, this.boxId, req, res);
      } catch (e) {
        this.deps.onError?.('egress request', e);
        res.destroy();
      }
    });
    this.server.on('connect', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
      if (!this.boxId) return void rawReply(socket, 503, 'This proxy port is not assigned to a box.\n');
      openTunnel(this.deps, this.boxId, req, socket, head).catch((e) => {
        this.deps.onError?.('egress tunnel', e);
        socket.destroy();
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server.on('clientError', (_e, s) => s.destroy());
    // a client in the box reuses pooled connections; under TCG its idle timers run late, so
    // Node's 5 s close raced them ("Connection error" on a POST, which no client retries)
    this.server.keepAliveTimeout = KEEP_ALIVE_MS;
  }

  /** Listens on 127.0.0.1:port (0: any free port); resolves with the port. */
  listen(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  get port(): number | undefined {
    const a = this.server.address();
    return a && typeof a === 'object' ? a.port : undefined;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.boxId) {
      this.deps.agents?.h2?.close(`${this.boxId} `);
      this.deps.agents?.h1.close(`${this.boxId} `);
    }
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
