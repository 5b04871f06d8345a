/**
 * upstreamJson over kept-alive connections: an upstream that closes a connection just as it
 * is reused (no answer, the request unread) gets the request again on a new connection;
 * any other failure is not retried.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { upstreamJson } from './http.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function listen(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('upstreamJson', () => {
  it('sends a request again when the kept-alive connection it reused was closed before any answer', async () => {
    const sockets = new Set<Socket>();
    let requests = 0;
    const base = await listen((req, res) => {
      requests++;
      sockets.add(req.socket);
      // the second request arrives on the first connection: close it unanswered
      if (requests === 2) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ n: requests }));
    });
    const call = () => upstreamJson('stale', `${base}/v1/models`, { headers: {}, timeoutMs: 5000 });
    expect(await call()).toEqual({ n: 1 });
    expect(await call()).toEqual({ n: 3 }); // answered on a new connection
    expect(requests).toBe(3);
    expect(sockets.size).toBe(2);
  });

  it('does not send again when the upstream fails on a new connection', async () => {
    let requests = 0;
    const base = await listen((req) => {
      requests++;
      req.socket.destroy();
    });
    await expect(upstreamJson('down', `${base}/v1/models`, { headers: {}, timeoutMs: 5000 })).rejects.toThrow(/unreachable/);
    expect(requests).toBe(1);
  });
});
