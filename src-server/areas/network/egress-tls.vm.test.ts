/**
 * HTTPS egress policies in a real microVM (issue 11): loopback HTTPS upstreams on the host
 * (reached from the box as host.box.internal) with certificates from a test CA given to the
 * service through BOX_EGRESS_CA_FILE. Inside the box, curl and Python's standard library use
 * HTTPS_PROXY and the install's egress CA with no flags; the proxy intercepts TLS, applies
 * method/path rules, injects a secret the box never sees, and verifies the upstream.
 */
import { sendBulk } from '../../test-support/send-bulk.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../../test-support/self-signed.js';
import { WebSocketServer } from 'ws';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { GUEST_CA_PATH } from './tls/guest-trust.js';

const VM_TIMEOUT = 300_000;
const SECRET = 'sk-vm-egress-secret-0123456789abcdef';
const BIG = 100 * 1024 * 1024;
/** How long a replaced egress CA stays trusted in boxes after a rotation (24 h by default). */
const GRACE_MS = 45_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let svc: TestService;
let boxId: string;
let good: https.Server;
let goodPort: number;
let bad: https.Server;
let badPort: number;
const seen: { method: string; url: string; key: string | undefined }[] = [];

const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};

async function exec(command: string) {
  const res = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command } });
  if (res.status !== 200) throw new Error(`exec: ${res.status} ${await res.text()}`);
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data?: string; return_code?: number });
  const text = (t: string) => Buffer.concat(events.filter((e) => e.type === t).map((e) => Buffer.from(e.data!, 'base64'))).toString();
  return { stdout: text('stdout'), stderr: text('stderr'), code: events.find((e) => e.type === 'exit')?.return_code };
}

/** A test root CA and a leaf for host.box.internal it signs (openssl, as an operator would make them), and a self-signed rogue for the same name. */
function testPki(dir: string) {
  const run = (...a: string[]) => execFileSync('openssl', a, { cwd: dir, stdio: 'ignore' });
  run(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Egress VM test root',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=host.box.internal', '-keyout', 'leaf.key', '-out', 'leaf.csr');
  fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:host.box.internal\n');
  run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'ext.cnf', '-out', 'leaf.pem');
  const r = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
  const { key, cert } = selfSignedCert('host.box.internal'); // the rogue upstream: trusted by no one
  return { caFile: path.join(dir, 'ca.pem'), leaf: { key: r('leaf.key'), cert: r('leaf.pem') }, rogue: { key, cert } };
}

const listen = (s: net.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));

beforeAll(async () => {
  const dir = fs.mkdtempSync('/tmp/bxegress-pki-');
  const pki = testPki(dir);
  good = https.createServer(pki.leaf, (req, res) => {
    seen.push({ method: req.method!, url: req.url!, key: req.headers['x-api-key'] as string | undefined });
    if (req.url === '/big') {
      return sendBulk(res, Buffer.alloc(1024 * 1024, 0x61), BIG);
    }
    req.resume();
    req.on('end', () => res.end(`ok ${req.method} ${req.url} key-${req.headers['x-api-key'] === SECRET ? 'matches' : 'absent'}`));
  });
  new WebSocketServer({ server: good }).on('connection', (ws, req) =>
    ws.on('message', (m) => ws.send(`ws-echo:${m.toString()} key-${req.headers['x-api-key'] === SECRET ? 'matches' : 'absent'}`)),
  );
  goodPort = await listen(good);
  bad = https.createServer(pki.rogue, (_q, res) => res.end('rogue content'));
  badPort = await listen(bad);

  process.env.BOX_EGRESS_CA_FILE = pki.caFile;
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxegress-'), tuning: { egressCaGraceMs: GRACE_MS } });
  delete process.env.BOX_EGRESS_CA_FILE;
  expect((await svc.api(`/v1/secrets/API_KEY`, { method: 'PUT', json: { value: SECRET } })).status).toBe(200);
  const appId = (await post('/v1/apps/find', { name: 'egress-tls', mint_if_missing: true })).id;
  const policy = await post('/v1/http-policies', {
    name: 'https-rules',
    document: {
      'host.box.internal': {
        rules: [
          { match: { method: 'POST', path: { prefix: '/local' } }, respond: { status: 201, body: 'answered by the policy' } },
          { match: { path: { prefix: '/api/' } }, request: { set: { headers: { 'x-api-key': '${secrets.API_KEY}' } } } },
          { match: { method: 'GET' } },
        ],
      },
    },
  });
  const box = await post('/v1/boxes', { app_id: appId, name: 'egressbox', http_policy_id: policy.id });
  expect(box.status).toBe('running');
  boxId = box.box_id;
}, VM_TIMEOUT);

afterAll(async () => {
  if (boxId) await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST' });
  await svc?.close();
  good?.closeAllConnections();
  good?.close();
  bad?.close();
}, VM_TIMEOUT);

describe('HTTPS egress from a real box', () => {
  it(
    'curl: GET allowed with a secret injected on the host (never in the box), POST answered locally, untrusted upstream refused',
    async () => {
      const ca = await (await svc.api('/v1/egress/ca')).json();
      expect(ca.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
      const inBox = await exec(
        'cat /usr/local/share/ca-certificates/box-egress.crt; echo "$SSL_CERT_FILE $NODE_EXTRA_CA_CERTS"; grep -c "BEGIN CERT" /etc/ssl/certs/ca-certificates.crt',
      );
      expect(inBox.stdout).toContain(ca.certificate.trim());
      expect(inBox.stdout).toContain('/etc/ssl/certs/ca-certificates.crt /usr/local/share/ca-certificates/box-egress.crt');
      expect(Number(inBox.stdout.trim().split('\n').pop())).toBeGreaterThan(100);

      const got = await exec(`curl -sS -w ' %{http_code}' https://host.box.internal:${goodPort}/api/v1/models?x=1`);
      expect(got.stdout).toBe(`ok GET /api/v1/models?x=1 key-matches 200`);
      expect(seen.at(-1)).toEqual({ method: 'GET', url: '/api/v1/models?x=1', key: SECRET });
      const posted = await exec(`curl -sS -w ' %{http_code}' -X POST -d hello https://host.box.internal:${goodPort}/local/upload`);
      expect(posted.stdout).toBe('answered by the policy 201');
      expect(seen.some((s) => s.url === '/local/upload')).toBe(false);
      const refused = await exec(`curl -sS -w ' %{http_code}' -X DELETE https://host.box.internal:${goodPort}/api-not/x`);
      expect(refused.stdout).toMatch(/no rule of host entry host\.box\.internal matches DELETE \/api-not\/x\.\n 403$/);
      const rogue = await exec(`curl -sS -w ' %{http_code}' https://host.box.internal:${badPort}/`);
      expect(rogue.stdout).toMatch(/TLS certificate failed verification[\s\S]* 502$/);
      expect(rogue.stdout).not.toContain('rogue content');

      const leak = await exec(`env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; grep -rs ${SECRET} /etc /root /tmp || true`);
      expect(leak.stdout + leak.stderr).not.toContain(SECRET);
    },
    VM_TIMEOUT,
  );

  it(
    "Python's standard library trusts the proxy with no flags",
    async () => {
      const py = await exec(
        `python3 -c "import urllib.request; print(urllib.request.urlopen('https://host.box.internal:${goodPort}/py/hello').read().decode())"`,
      );
      expect(py.stderr).toBe('');
      expect(py.stdout.trim()).toBe('ok GET /py/hello key-absent');
    },
    VM_TIMEOUT,
  );

  it(
    'a WebSocket (wss) through the proxy, with the secret header injected',
    async () => {
      const script = `
import os, socket, ssl, base64
s = socket.create_connection(("10.0.2.100", 3128))
s.sendall(b"CONNECT host.box.internal:${goodPort} HTTP/1.1\\r\\nHost: host.box.internal:${goodPort}\\r\\n\\r\\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200")
t = ssl.create_default_context().wrap_socket(s, server_hostname="host.box.internal")
key = base64.b64encode(os.urandom(16)).decode()
t.sendall(("GET /api/ws HTTP/1.1\\r\\nHost: host.box.internal\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Key: %s\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n" % key).encode())
head = b""
while b"\\r\\n\\r\\n" not in head: head += t.recv(1)
print(head.split(b"\\r\\n")[0].decode())
msg = b"hi-from-box"; mask = os.urandom(4)
t.sendall(bytes([0x81, 0x80 | len(msg)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(msg)))
h = t.recv(2); n = h[1] & 0x7f
data = b""
while len(data) < n: data += t.recv(n - len(data))
print(data.decode())
`;
      const ws = await exec(`python3 - <<'PY'\n${script}\nPY`);
      expect(ws.stderr).toBe('');
      expect(ws.stdout.trim().split('\n')).toEqual(['HTTP/1.1 101 Switching Protocols', 'ws-echo:hi-from-box key-matches']);
    },
    VM_TIMEOUT,
  );

  it(
    'a 100 MB download through the intercepting proxy arrives whole',
    async () => {
      const dl = await exec(`curl -sS -o /dev/null -w '%{size_download} %{http_code}' https://host.box.internal:${goodPort}/big`);
      expect(dl.stdout).toBe(`${BIG} 200`);
    },
    VM_TIMEOUT,
  );

  it(
    'the egress log shows each https request with method, path, verdict and status',
    async () => {
      const log = await (await svc.api(`/v1/boxes/${boxId}/egress-log?limit=100`)).json();
      const lines = (log.data as { method: string; path: string; scheme: string; verdict: string; status: number }[])
        .filter((e) => e.scheme === 'https')
        .map((e) => `${e.method} ${e.path} ${e.verdict} ${e.status}`)
        .reverse();
      expect(lines).toEqual([
        'GET /api/v1/models allow 200',
        'POST /local/upload respond 201',
        'DELETE /api-not/x deny 403',
        'GET / allow 502',
        'GET /py/hello allow 200',
        'GET /api/ws allow 101',
        'GET /big allow 200',
      ]);
      const denied = await (await svc.api(`/v1/boxes/${boxId}/egress-log?verdict=deny`)).json();
      expect(denied.data.map((e: { path: string }) => e.path)).toEqual(['/api-not/x']);
    },
    VM_TIMEOUT,
  );

  it(
    'CA rotation reaches the running box: new connections verify at once, one opened before keeps working, the old CA leaves after the grace period',
    async () => {
      const old = await (await svc.api('/v1/egress/ca')).json();
      // A client holding one TLS connection through the proxy across the rotation: a request
      // every 0.3 s on the same connection, one line per answer, until told to stop.
      const keep = `
import http.client, os, time
c = http.client.HTTPSConnection("10.0.2.100", 3128)
c.set_tunnel("host.box.internal", ${goodPort})
while not os.path.exists("/tmp/keep.stop"):
    c.request("GET", "/keep")
    r = c.getresponse()
    r.read()
    with open("/tmp/keep.out", "a") as f:
        f.write("%d %d\\n" % (r.status, c.sock.getsockname()[1]))
    time.sleep(0.3)
`;
      await exec(
        `rm -f /tmp/keep.out /tmp/keep.stop; cat > /tmp/keep.py <<'PY'\n${keep}\nPY\nsetsid nohup python3 /tmp/keep.py > /tmp/keep.log 2>&1 < /dev/null &`,
      );
      const answers = async () => (await exec('cat /tmp/keep.out 2>/dev/null')).stdout.trim().split('\n').filter(Boolean);
      const waitFor = async (n: number) => {
        for (let i = 0; i < 120 && (await answers()).length < n; i++) await sleep(1000);
      };
      await waitFor(2);
      const before = (await answers()).length;
      expect(before).toBeGreaterThanOrEqual(2);

      const rotated = await post('/v1/egress/ca/rotate');
      expect(rotated).toMatchObject({ boxes_updated: 1, boxes_failed: [] });
      expect(rotated.fingerprint_sha256).not.toBe(old.fingerprint_sha256);
      const atRotation = (await answers()).length;
      // Written into the running box before the answer: the new CA, and the old one for the grace period.
      const files = await exec(`cat ${GUEST_CA_PATH}; grep -c 'BEGIN CERTIFICATE' ${GUEST_CA_PATH}`);
      expect(files.stdout).toContain(rotated.certificate.trim());
      expect(files.stdout).toContain(old.certificate.trim());
      expect(files.stdout.trim().split('\n').pop()).toBe('2');
      // A new connection gets a leaf from the new CA: it verifies against the new CA alone, not the old one.
      await exec(`cat > /tmp/new.pem <<'PEM'\n${rotated.certificate}PEM\ncat > /tmp/old.pem <<'PEM'\n${old.certificate}PEM`);
      const withNew = await exec(`curl -sS -w ' %{http_code}' --cacert /tmp/new.pem https://host.box.internal:${goodPort}/after/new`);
      expect(withNew.stdout).toBe('ok GET /after/new key-absent 200');
      const withOld = await exec(`curl -sS -o /dev/null --cacert /tmp/old.pem https://host.box.internal:${goodPort}/after/old; echo "exit $?"`);
      expect(withOld.stdout.trim()).toBe('exit 60');
      const plain = await exec(
        `python3 -c "import urllib.request; print(urllib.request.urlopen('https://host.box.internal:${goodPort}/after/py').read().decode())"`,
      );
      expect(plain.stdout.trim()).toBe('ok GET /after/py key-absent');

      // The connection opened before the rotation carried on: every request answered, one socket throughout.
      await waitFor(atRotation + 2);
      await exec('touch /tmp/keep.stop');
      await sleep(2000);
      const kept = (await answers()).map((l) => l.split(' '));
      expect(kept.length).toBeGreaterThanOrEqual(atRotation + 2);
      expect(new Set(kept.map(([status]) => status))).toEqual(new Set(['200']));
      expect(new Set(kept.map(([, port]) => port)).size).toBe(1);
      expect((await exec('cat /tmp/keep.log')).stdout).toBe('');

      // The grace period ends: the old CA is taken out of the running box again.
      const until = Date.now() + GRACE_MS + 60_000;
      let count = '';
      while (Date.now() < until) {
        count = (await exec(`grep -c 'BEGIN CERTIFICATE' ${GUEST_CA_PATH}`)).stdout.trim();
        if (count === '1') break;
        await sleep(3000);
      }
      expect(count).toBe('1');
      expect((await exec(`cat ${GUEST_CA_PATH}`)).stdout).toBe(rotated.certificate);
      expect((await exec(`grep -c '${old.fingerprint_sha256}' /etc/ssl/certs/ca-certificates.crt`)).stdout.trim()).toBe('0');
      expect((await exec(`curl -sS https://host.box.internal:${goodPort}/after/grace`)).stdout).toBe('ok GET /after/grace key-absent');
    },
    VM_TIMEOUT,
  );
});
