/**
 * The two WebSocket endpoints of a desktop box, both behind the API key (or the UI's
 * session cookie) like every route, neither needing a published port:
 * - `/v1/desktop/vnc?box_id=`: the live view. Binary WebSocket messages carry the RFB bytes
 *   of the box's VNC server (x11vnc on 127.0.0.1:5901 in the guest): noVNC talks to it.
 * - `/v1/desktop/cdp?box_id=`: the box browser's DevTools protocol (Playwright
 *   `chromium.connectOverCDP`). The upgrade itself is handed to the browser (with its own
 *   path and Host), then bytes flow both ways; the browser starts on first use.
 * Each connection is one exec in the guest: a small TCP relay on the exec's stdin/stdout.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { BoxAccess, BoxRecord, GuestAgent } from '../boxes/ports.js';
import { DESKTOP_CDP_PATH, DESKTOP_VNC_PATH, DesktopBoxParams, DesktopCdpMessage, DesktopVncFrame } from '@box/contract/desktop';
import { invalid } from '../../kernel/domain-errors.js';
import type { RouteRegistrar } from '../../platform/http/route.js';
import type { DesktopService } from './desktop-service.js';

const RELAY = `import os, socket, sys, threading
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
def up():
    while True:
        b = os.read(0, 65536)
        if not b:
            break
        s.sendall(b)
    s.shutdown(socket.SHUT_WR)
threading.Thread(target=up, daemon=True).start()
out = sys.stdout.buffer
while True:
    b = s.recv(65536)
    if not b:
        break
    out.write(b)
    out.flush()
`;
const VNC_PORT = 5901;
const CDP_PORT = 9222;
const CDP_VERSION = `for i in $(seq 1 120); do v=$(curl -sf http://127.0.0.1:${CDP_PORT}/json/version) && { echo "$v"; exit 0; }
[ $i = 1 ] && { pgrep -f 'remote-debugging-port=${CDP_PORT}' >/dev/null || (setsid -f box-browser about:blank >/dev/null 2>&1 </dev/null); }
sleep 0.5; done; exit 1`;

function relay(agent: GuestAgent, port: number) {
  return agent.exec({ argv: ['python3', '-c', RELAY, String(port)], user: 'user', stdin: true });
}

function boxOf(access: BoxAccess, req: IncomingMessage, auth: Parameters<BoxAccess['boxFor']>[1]): Promise<BoxRecord> {
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  const parsed = DesktopBoxParams.safeParse({ box_id: q.get('box_id') ?? '' });
  if (!parsed.success) throw invalid(parsed.error.issues[0]!.message, 'box_id');
  return access.boxFor(req, auth, parsed.data.box_id, 'exec');
}

function fail(socket: Duplex, status: number, message: string) {
  const body = JSON.stringify({ error: { message, type: 'api_error', param: null, code: 'desktop_unavailable' } });
  socket.end(`HTTP/1.1 ${status} Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export function desktopRelays(r: RouteRegistrar, desktop: DesktopService, access: BoxAccess) {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
  r.upgrade({
    path: DESKTOP_VNC_PATH,
    area: 'box',
    summary: 'The live view of a desktop box: RFB over binary WebSocket messages (noVNC), query box_id',
    messages: { client: DesktopVncFrame, server: DesktopVncFrame },
    handle: async ({ req, socket, head, auth, admit }) => {
      const box = await boxOf(access, req, auth);
      void desktop
        .relayAgent(box)
        .then(async (agent) => {
          const release = await admit();
          wss.handleUpgrade(req, socket, head, (ws) => {
            const ex = relay(agent, VNC_PORT);
            ex.stdout.on('data', (b: Buffer) => ws.readyState === ws.OPEN && ws.send(b));
            ws.on('message', (m: Buffer) => void ex.writeStdin(Buffer.from(m)).catch(() => ws.close()));
            const end = () => {
              release();
              ex.signal('SIGKILL');
              ws.close();
            };
            ws.once('close', end);
            ws.on('error', end);
            // ended or failed (the box stopped): either way the connection ends, and no rejection is left unhandled
            const closed = () => ws.close(1011, 'the box closed the display connection');
            void ex.exit.then(closed, closed);
          });
        })
        .catch((e: Error) => fail(socket, 409, e.message));
    },
  });
  r.upgrade({
    path: DESKTOP_CDP_PATH,
    area: 'box',
    summary: "The DevTools protocol of a desktop box's browser (Playwright connectOverCDP; the browser starts on first use), query box_id",
    messages: { client: DesktopCdpMessage, server: DesktopCdpMessage },
    handle: async ({ req, socket, head, auth, admit }) => {
      const box = await boxOf(access, req, auth);
      void cdp(desktop, box, req, socket, head, admit).catch((e: Error) => fail(socket, 409, e.message));
    },
  });
}

async function cdp(desktop: DesktopService, box: BoxRecord, req: IncomingMessage, socket: Duplex, head: Buffer, admit: () => Promise<() => void>) {
  const agent = await desktop.relayAgent(box);
  const version = agent.exec({ argv: ['/bin/sh', '-c', CDP_VERSION], user: 'user', env: { DISPLAY: ':0', HOME: '/home/user' }, timeoutMs: 90_000 });
  const chunks: Buffer[] = [];
  version.stdout.on('data', (b: Buffer) => chunks.push(b));
  version.stderr.resume();
  const v = await version.exit;
  const url = v.exitCode === 0 ? (JSON.parse(Buffer.concat(chunks).toString()) as { webSocketDebuggerUrl?: string }).webSocketDebuggerUrl : undefined;
  if (!url) throw new Error(`The browser of box ${box.name} did not open its DevTools port.`);
  const release = await admit();
  const ex = relay(agent, CDP_PORT);
  const keep = ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol'];
  const headers = keep.filter((h) => req.headers[h]).map((h) => `${h}: ${String(req.headers[h])}\r\n`);
  await ex.writeStdin(
    Buffer.from(`GET ${new URL(url).pathname} HTTP/1.1\r\nHost: 127.0.0.1:${CDP_PORT}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${headers.join('')}\r\n`),
  );
  if (head.length) await ex.writeStdin(head);
  ex.stdout.on('data', (b: Buffer) => socket.write(b));
  socket.on('data', (b: Buffer) => void ex.writeStdin(b).catch(() => socket.destroy()));
  const end = () => {
    release();
    ex.signal('SIGKILL');
    socket.destroy();
  };
  socket.once('close', end);
  socket.on('error', end);
  const finish = () => socket.end();
  void ex.exit.then(finish, finish); // ended or failed (the box stopped)
}
