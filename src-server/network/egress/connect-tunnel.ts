import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { matchHost, portAllowed } from '../../policies/ports.js';
import { decideConnect } from './decide.js';
import { forwardTo, type ForwardTarget } from './forward-core.js';
import { interceptTunnel } from './intercept.js';
import { CONNECT_TIMEOUT_MS, DEFAULT_IDLE_MS, failed, nowIso, rawReply, type ProxyDeps } from './proxy-deps.js';
import { forwardUpgrade } from './upgrade.js';
import { connectOptions, defaultResolver } from './upstream.js';

const AUTHORITY = /^\[?([^\][]+?)\]?:(\d{1,5})$/;

/**
 * `CONNECT host:port` from a box. When the box's policy governs the host (an entry matches
 * and does not say `tls: "passthrough"`) and the service has its egress CA, the TLS inside
 * is intercepted (intercept.ts) and every request decided on its own. Otherwise the tunnel
 * is decided by host alone and the bytes are relayed untouched. The log entry is written when the tunnel opens (or is
 * refused) and gets its byte counts when it closes.
 */
export async function openTunnel(deps: ProxyDeps, boxId: string, req: http.IncomingMessage, client: Duplex, head: Buffer) {
  client.on('error', () => {});
  const m = AUTHORITY.exec(req.url ?? '');
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535) {
    rawReply(client, 400, 'CONNECT needs host:port.\n');
    return;
  }
  const host = m[1]!.toLowerCase();
  const policy = await deps.policyFor(boxId);
  const key = policy ? matchHost(policy.document, host) : undefined;
  if (deps.gateway?.isGateway(host, port)) return gatewayTunnel(deps, boxId, host, port, client, head);
  const gatewayPort = deps.gateway?.port();
  const hostEntry = key === undefined ? undefined : policy!.document[key]!;
  if (deps.ca && hostEntry && hostEntry.tls !== 'passthrough' && portAllowed(hostEntry, port, gatewayPort)) {
    return interceptTunnel(deps, boxId, host, port, client, head);
  }
  const d = decideConnect(policy, host, port, gatewayPort);
  const started = performance.now();
  const entry = {
    at: nowIso(),
    method: 'CONNECT',
    host,
    port,
    path: null,
    scheme: 'tunnel' as const,
    verdict: d.verdict,
    policy_id: d.policyId,
    rule_index: d.ruleIndex,
    duration_ms: null,
    reason: null as string | null,
  };
  const refuse = (status: number, body: string, reason: string = body) => {
    const n = rawReply(client, status, body);
    deps.log.add(boxId, {
      ...entry,
      status,
      bytes_out: 0,
      bytes_in: n,
      duration_ms: Math.round(performance.now() - started),
      reason: reason.trim().slice(0, 500) || null,
    });
  };
  if (d.verdict === 'deny') return refuse(403, `${d.message}\n`);
  if (d.verdict === 'respond') return refuse(d.respond!.status, d.respond!.body ?? '', d.message);

  let opts;
  try {
    opts = connectOptions((deps.resolve ?? defaultResolver)(host, port));
  } catch (e) {
    return refuse(403, `${(e as Error).message}\n`);
  }
  // No Nagle: a relayed small write (an interactive protocol's keystroke) goes out at once.
  const up = net.connect({ ...opts, noDelay: true });
  up.setTimeout(CONNECT_TIMEOUT_MS);
  let connected = false;
  let bytesOut = 0;
  let bytesIn = 0;
  let logId: number | undefined;
  up.once('connect', () => {
    connected = true;
    up.setTimeout(deps.idleTimeoutMs ?? DEFAULT_IDLE_MS);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    logId = deps.log.add(boxId, { ...entry, status: 200, bytes_out: 0, bytes_in: 0 });
    if (head.length) {
      bytesOut += head.length;
      up.write(head);
    }
    client.on('data', (c: Buffer) => (bytesOut += c.length));
    up.on('data', (c: Buffer) => (bytesIn += c.length));
    client.pipe(up);
    up.pipe(client);
  });
  up.on('timeout', () => up.destroy(new Error(connected ? 'idle too long' : 'timed out connecting')));
  up.on('error', (e) => {
    if (!connected) return refuse(/timed out/.test(e.message) ? 504 : 502, `${host}:${port} could not be reached: ${e.message}\n`);
    client.destroy();
  });
  client.on('close', () => up.destroy());
  up.on('close', () => {
    client.destroy();
    if (logId !== undefined) deps.log.finish(logId, { bytes_out: bytesOut, bytes_in: bytesIn, duration_ms: Math.round(performance.now() - started) });
  });
}

/**
 * A tunnel to the local inference gateway carries plain HTTP (Node's fetch through undici's
 * proxy agents, for one, tunnels http:// targets with CONNECT). It is never relayed raw:
 * each request inside goes the way an absolute-form one does (forward-core.ts: the policy,
 * the log, and the box's own key exchanged for its internal credential, gateway-auth.ts).
 */
function gatewayTunnel(deps: ProxyDeps, boxId: string, host: string, port: number, client: Duplex, head: Buffer) {
  const target = (pathAndQuery: string | undefined): ForwardTarget => ({ scheme: 'http', host, port, pathAndQuery: pathAndQuery || '/' });
  const server = http.createServer((req, res) => void forwardTo(deps, boxId, req, res, target(req.url)).catch((e) => failed(deps, res, e)));
  server.on(
    'upgrade',
    (req: http.IncomingMessage, socket: Duplex, h: Buffer) =>
      void forwardUpgrade(deps, boxId, req, socket, h, target(req.url)).catch((e) => failed(deps, socket, e)),
  );
  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  if (head.length) client.unshift(head);
  server.emit('connection', client);
}
