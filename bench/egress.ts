// `npm run bench:egress`: HTTPS through the box egress proxy with TLS interception (the
// proxy terminates the client's TLS with a leaf from the install's CA, applies the policy,
// and makes its own verified TLS connection upstream) against the same client calling the
// loopback HTTPS upstream directly. Warm keep-alive connections on both paths; latency p50/
// p95 of small GETs, request throughput at concurrency 8, bulk download throughput, and the
// p50 of a request on a new connection (TCP + CONNECT + TLS handshake + GET: a curl run).
// The upstream and the proxy each run in their own process; this process is the client.
// BENCH_UPSTREAM=h2: the upstream also offers h2; BENCH_CLIENT=h2 (with it): the client
// speaks HTTP/2 on both paths, as curl does.
import { selfSignedCert } from '../src-server/test-support/self-signed.js';
import { sendBulk } from '../src-server/test-support/send-bulk.js';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';

const HOST = 'bench.example.test';
const BULK = Number(process.env.BENCH_BULK_MB ?? 128) * 1024 * 1024;
const role = process.argv.find((a) => a.startsWith('--role='))?.slice(7);
const arg = (k: string) => process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3);

/** BENCH_PROFILE=<dir>: the proxy process writes a V8 CPU profile there (open it in Chrome DevTools). */
const PROFILE = process.env.BENCH_PROFILE;

function child(r: string, extra: string[] = []): Promise<{ proc: ChildProcess; info: Record<string, string | number> }> {
  const prof = PROFILE && r === 'proxy' ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
  // BENCH_PROXY_FLAGS: extra Node flags for the proxy process (e.g. --trace-gc), to study it.
  if (r === 'proxy' && process.env.BENCH_PROXY_FLAGS) prof.push(...process.env.BENCH_PROXY_FLAGS.split(' '));
  const proc = spawn(process.execPath, [...prof, ...process.execArgv, fileURLToPath(import.meta.url), `--role=${r}`, ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    let started = false;
    proc.stdout!.on('data', (c) => {
      // After its first JSON line, what a child prints (e.g. --trace-gc) goes to stderr.
      if (started) return void process.stderr.write(c);
      buf += c;
      const line = buf.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        started = true;
        resolve({ proc, info: JSON.parse(line) });
      }
    });
    proc.on('exit', (code) => reject(new Error(`${r} exited with ${code}`)));
  });
}

/** CPU time (µs, user + system) a child process has used so far, from /proc (10 ms ticks). */
const cpuOf = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
const ownCpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** An agent whose connections are CONNECT tunnels through the proxy, TLS inside trusting `ca` (what a box does). */
class TunnelAgent extends https.Agent {
  constructor(
    private proxyPort: number,
    private ca: string,
    keepAlive = true,
  ) {
    super({ keepAlive, maxSockets: 16 });
  }
  override createConnection(o: https.RequestOptions, cb?: (e: Error | null, s: Duplex) => void): undefined {
    const req = http.request({ host: '127.0.0.1', port: this.proxyPort, method: 'CONNECT', path: `${o.host}:${o.port}` });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) return cb!(new Error(`CONNECT answered ${res.statusCode}`), socket);
      cb!(null, tls.connect({ socket, servername: o.servername ?? o.host ?? undefined, ca: this.ca }));
    });
    req.on('error', (e) => cb!(e, req.socket!));
    req.end();
    return undefined;
  }
}

function get(agent: https.Agent, p: string, ca?: string, port = 443): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: ca ? '127.0.0.1' : HOST, servername: HOST, port, path: p, agent, headers: { host: HOST }, ...(ca ? { ca } : {}) }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The TLS suites in use: what the client's connection negotiated, and what the upstream's side of its connection did. */
function ciphers(agent: https.Agent, ca?: string, port = 443): Promise<{ client_leg: string; upstream_leg: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: ca ? '127.0.0.1' : HOST, servername: HOST, port, path: '/cipher', agent, headers: { host: HOST }, ...(ca ? { ca } : {}) }, (res) => {
        const client_leg = (res.socket as tls.TLSSocket).getCipher().standardName;
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ client_leg, upstream_leg: body }));
      })
      .on('error', reject);
  });
}

/**
 * BENCH_CLIENT=h2 (with BENCH_UPSTREAM=h2): the client speaks HTTP/2 on both paths, as curl
 * does by default: one session per path (concurrent requests are its streams), windows as
 * large as the proxy's own upstream sessions use, a new session per request for `cold`.
 */
const H2_CLIENT = process.env.BENCH_CLIENT === 'h2';

async function h2Session(connect: () => Promise<tls.TLSSocket>): Promise<http2.ClientHttp2Session> {
  const t = await connect();
  const session = http2.connect(`https://${HOST}`, { createConnection: () => t, settings: { initialWindowSize: 4 << 20 } });
  await new Promise((r) => session.once('connect', r));
  session.setLocalWindowSize(16 << 20);
  return session;
}

/** TLS with ALPN h2: straight to the upstream, or inside a CONNECT tunnel through the proxy. */
function h2Tls(ca: string, o: { port: number } | { proxyPort: number }): Promise<tls.TLSSocket> {
  const open = (socket?: Duplex) =>
    new Promise<tls.TLSSocket>((resolve, reject) => {
      const t = tls.connect({
        ...(socket ? { socket } : { host: '127.0.0.1', port: (o as { port: number }).port }),
        servername: HOST,
        ca,
        ALPNProtocols: ['h2'],
      });
      t.once('secureConnect', () => resolve(t)).once('error', reject);
    });
  if ('port' in o) return open();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: o.proxyPort, method: 'CONNECT', path: `${HOST}:443` });
    req.on('connect', (res, socket) => (res.statusCode === 200 ? open(socket).then(resolve, reject) : reject(new Error(`CONNECT answered ${res.statusCode}`))));
    req.on('error', reject);
    req.end();
  });
}

function h2Get(session: http2.ClientHttp2Session, p: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const st = session.request({ ':path': p });
    let n = 0;
    st.on('data', (c: Buffer) => (n += c.length));
    st.on('end', () => resolve(n));
    st.on('error', reject);
    st.end();
  });
}

async function main() {
  const loadAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
  const up = await child('upstream');
  process.on('exit', () => up.proc.kill());
  const px = await child('proxy', [`--upstream-port=${up.info.port}`, `--ca-file=${up.info.caFile}`]);
  process.on('exit', () => px.proc.kill());
  const upPort = Number(up.info.port);
  const direct = new https.Agent({ keepAlive: true, maxSockets: 16 });
  const via = new TunnelAgent(Number(px.info.port), String(px.info.ca));
  // New connections: what a `curl` or `pip` run pays per invocation (TCP + TLS handshake + one GET).
  const directCold = new https.Agent({ keepAlive: false });
  const viaCold = new TunnelAgent(Number(px.info.port), String(px.info.ca), false);
  const paths = {
    direct: (p: string) => get(direct, p, String(up.info.cert), upPort),
    proxy: (p: string) => get(via, p),
  };
  const cold = {
    direct: (p: string) => get(directCold, p, String(up.info.cert), upPort),
    proxy: (p: string) => get(viaCold, p),
  };
  if (H2_CLIENT) {
    if (process.env.BENCH_UPSTREAM !== 'h2') throw new Error('BENCH_CLIENT=h2 needs BENCH_UPSTREAM=h2 (the direct path speaks HTTP/2 to the upstream)');
    const to = { direct: { port: upPort }, proxy: { proxyPort: Number(px.info.port) } };
    const ca = { direct: String(up.info.cert), proxy: String(px.info.ca) };
    const sessions: Partial<Record<'direct' | 'proxy', Promise<http2.ClientHttp2Session>>> = {};
    for (const k of ['direct', 'proxy'] as const) {
      paths[k] = async (p) => h2Get(await (sessions[k] ??= h2Session(() => h2Tls(ca[k], to[k]))), p);
      cold[k] = async (p) => {
        const session = await h2Session(() => h2Tls(ca[k], to[k]));
        try {
          return await h2Get(session, p);
        } finally {
          session.destroy();
        }
      };
    }
    process.on('exit', () => Object.values(sessions).forEach((s) => void s?.then((x) => x.destroy())));
  }
  const result: Record<string, Record<string, number>> = {};
  /** CPU µs per request at concurrency 8, per process: what bounds throughput on 2 shared cores. */
  const cpu: Record<string, Record<string, number>> = {};
  const cpuMb: Record<string, Record<string, number>> = {};
  for (const [name, call] of Object.entries(paths)) {
    for (let i = 0; i < Number(process.env.BENCH_WARM ?? 300); i++) await call('/small');
    const lat: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_N ?? 1000); i++) {
      const t = performance.now();
      await call('/small');
      lat.push(performance.now() - t);
    }
    // Steady state: the proxy has far more code than the client or the upstream, and V8
    // keeps optimising it for thousands of requests (its compiler threads were ~13% of the
    // proxy's CPU in a 3 s run without this). Both paths get the same warm-up.
    const warmEnd = Date.now() + Number(process.env.BENCH_WARM_C8_MS ?? 3000);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < warmEnd) await call('/small');
      }),
    );
    let done = 0;
    const cpu0 = [ownCpu(), cpuOf(up.proc.pid!), cpuOf(px.proc.pid!)];
    const end = Date.now() + Number(process.env.BENCH_C8_MS ?? 3000);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < end) {
          await call('/small');
          done++;
        }
      }),
    );
    const [client, upstream, proxy] = [ownCpu(), cpuOf(up.proc.pid!), cpuOf(px.proc.pid!)].map((c, i) => (c - cpu0[i]!) / done);
    cpu[name] = { client: Math.round(client!), upstream: Math.round(upstream!), proxy: Math.round(proxy!) };
    // Bulk: best of BENCH_BULK_RUNS downloads (one 128 MB download lasts well under a second,
    // so one scheduling hiccup of the shared machine moves a single figure a lot).
    let s = Infinity;
    let bytes = 0;
    const bulkCpu0 = [ownCpu(), cpuOf(up.proc.pid!), cpuOf(px.proc.pid!)];
    const bulkRuns = Number(process.env.BENCH_BULK_RUNS ?? 3);
    for (let i = 0; i < bulkRuns; i++) {
      const t = performance.now();
      bytes = await call('/bulk');
      s = Math.min(s, (performance.now() - t) / 1000);
    }
    /** CPU ms per MB downloaded, per process (averaged over the runs). */
    const mb = (bytes / 1e6) * bulkRuns;
    const [bc, bu, bp] = [ownCpu(), cpuOf(up.proc.pid!), cpuOf(px.proc.pid!)].map((c, i) => Math.round(((c - bulkCpu0[i]!) / mb / 1000) * 100) / 100);
    cpuMb[name] = { client: bc!, upstream: bu!, proxy: bp! };
    const coldLat: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_COLD ?? 200); i++) {
      const t0 = performance.now();
      await cold[name as keyof typeof cold]('/small');
      coldLat.push(performance.now() - t0);
    }
    result[name] = { p50_ms: pct(lat, 50), p95_ms: pct(lat, 95), rps_c8: done / 3, bulk_mb_s: bytes / 1e6 / s, new_conn_p50_ms: pct(coldLat, 50) };
  }
  const suites = { direct: await ciphers(direct, String(up.info.cert), upPort), via_proxy: await ciphers(via) };
  const r = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const f = (x: number) => Math.round(x * 100) / 100;
  const d = result.direct!;
  const p = result.proxy!;
  console.log(
    JSON.stringify(
      {
        direct: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, f(v)])),
        via_proxy: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, f(v)])),
        added_latency_p50_ms: f(p.p50_ms - d.p50_ms),
        added_new_conn_p50_ms: f(p.new_conn_p50_ms - d.new_conn_p50_ms),
        latency_p50_ratio: r(p.p50_ms, d.p50_ms),
        throughput_ratio_rps_c8: r(p.rps_c8, d.rps_c8),
        throughput_ratio_bulk: r(p.bulk_mb_s, d.bulk_mb_s),
        cpu_us_per_request_c8: cpu,
        cpu_ms_per_mb_bulk: cpuMb,
        tls_suites: suites,
        load_average_1m: { start: loadAtStart, end: Math.round(os.loadavg()[0]! * 100) / 100 },
        upstream: process.env.BENCH_UPSTREAM === 'h2' ? 'offers h2 and http/1.1 (ALPN)' : 'HTTP/1.1 only',
        client: H2_CLIENT ? 'HTTP/2, one session per path' : 'HTTP/1.1, keep-alive pool',
        goals: { added_latency_p50_ms: '< 2', throughput_ratio: '>= 0.8' },
      },
      null,
      2,
    ),
  );
  up.proc.kill();
  px.proc.kill();
  for (const a of [direct, via, directCold, viaCold]) a.destroy();
}

// Children leave with the client (also when it is killed).
if (role) setInterval(() => process.ppid === 1 && process.exit(0), 1000).unref();
// A clean exit on kill, so that --cpu-prof writes its profile.
if (role) process.on('SIGTERM', () => process.exit(0));

if (role === 'upstream') {
  const { key, cert, certFile } = selfSignedCert(HOST);
  const chunk = Buffer.alloc(1 << 20, 0x62);
  const small = Buffer.from('{"ok":true,"object":"bench"}');
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url === '/cipher') return void res.end((req.socket as tls.TLSSocket).getCipher().standardName);
    if (req.url === '/bulk') {
      return sendBulk(res, chunk, BULK);
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': small.length }).end(small);
  };
  // The upstream speaks HTTP/1.1 only (the proxy uses its HTTP/1.1 keep-alive pool).
  // BENCH_UPSTREAM=h2: like most public HTTPS origins (registries, model APIs, GitHub) it
  // also offers h2 in ALPN, which the proxy then uses (one session per box and origin); the
  // direct baseline (Node's https offers no ALPN) is still served HTTP/1.1, by the same
  // HTTP/1.1 server code. Node's HTTP/2 server costs the upstream process more CPU per
  // request than its HTTP/1.1 one, which on shared cores counts against the proxy's ratio.
  const s =
    process.env.BENCH_UPSTREAM === 'h2'
      ? http2.createSecureServer(
          { key, cert, allowHTTP1: true, noDelay: true },
          handler as unknown as (q: http2.Http2ServerRequest, r: http2.Http2ServerResponse) => void,
        )
      : https.createServer({ key, cert, keepAliveTimeout: 60_000, noDelay: true }, handler);
  s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (s.address() as net.AddressInfo).port, cert, caFile: certFile })));
} else if (role === 'proxy') {
  const [{ openDatabase }, { openFastConnection }, { CryptoBox }, { EgressCa }, { BoxProxy }, { EgressRepo }, { upstreamAgents, upstreamRoots }] =
    await Promise.all([
      import('../src-server/db/connection.js'),
      import('../src-server/db/fast-connection.js'),
      import('../src-server/util/crypto-box.js'),
      import('../src-server/network/tls/egress-ca.js'),
      import('../src-server/network/egress/box-proxy.js'),
      import('../src-server/network/egress/egress-log-repo.js'),
      import('../src-server/network/egress/upstream-tls.js'),
    ]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-egress-data-'));
  const main = await openDatabase(dataDir); // creates the schema
  const db = openFastConnection(dataDir, main); // as the service's egress area does
  const ca = await EgressCa.open(db, () => CryptoBox.forDataDir(dataDir));
  const upPort = Number(arg('upstream-port'));
  const proxy = new BoxProxy({
    // The policy the box runs under: the host governed (so intercepted), a path rule, a secret header.
    policyFor: async () => ({
      id: 'hp_bench',
      name: 'bench',
      document: { [HOST]: { rules: [{ match: { method: 'GET' }, request: { set: { headers: { 'x-api-key': '${secrets.K}' } } } }] } },
    }),
    secretFor: async () => 'bench-secret',
    log: new EgressRepo(db, 1000),
    resolve: (_h, port) => ({ host: '127.0.0.1', port: port === 443 ? upPort : port, internal: true }),
    tlsCa: upstreamRoots(arg('ca-file'))!.join('\n'),
    ca,
    agents: upstreamAgents(),
  });
  proxy.boxId = 'box_bench';
  const port = await proxy.listen();
  console.log(JSON.stringify({ port, ca: ca.info.certificate }));
} else {
  await main();
}
