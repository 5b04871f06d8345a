/**
 * `npm run bench:sdk [-- --runs 200] [-- --fake]`: what the SDKs add to an exec (issue 26's
 * figure "SDK exec p50 / raw HTTP exec p50 <= 1.1"). One service, one real box (fake VMs
 * with --fake); `true` is run back to back, alternating each SDK call with a raw HTTP call
 * of the same exec from the same process and HTTP stack (Node's fetch with the NDJSON body
 * read and parsed; Python's httpx with the same), so noise hits both alike.
 *   - TypeScript: `box.exec('true')` of @box-desktop/sdk (its built dist/) vs fetch.
 *   - Python: `box.exec("true")` of box_desktop (installed into a venv of Debian's python3)
 *     vs an httpx.Client streaming the same request with TCP_NODELAY (the SDK's setting), and
 *     vs a bare httpx.Client: httpcore writes headers and body apart, and with Nagle on a
 *     reused connection the body waits for the server's delayed ACK (~40 ms).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPythonSdk } from '../scripts/python-sdk.js';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService } from '../src-server/test-support/harness.js';

const argv = process.argv.slice(2);
const RUNS = argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : 200;
const FAKE = argv.includes('--fake');
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r2 = (x: number) => Math.round(x * 100) / 100;
const ROOT = path.resolve(import.meta.dirname, '..');

process.env.BOX_IMAGE_CACHE ??= path.join(os.tmpdir(), 'box-image-cache');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-bench-sdk-'));
execFileSync('node', ['scripts/build.mjs'], { cwd: path.join(ROOT, 'sdk/typescript'), stdio: 'inherit' });
const python = installPythonSdk(tmp);
const svc = await startTestService({ dataDir: path.join(tmp, 'data'), ...(FAKE ? { runtime: (d: string) => new FakeRuntime(d) } : {}) });
try {
  const { BoxClient } = (await import(path.join(ROOT, 'sdk/typescript/dist/index.js'))) as typeof import('../sdk/typescript/src/index.js');
  const client = new BoxClient({ url: svc.url, apiKey: svc.key, env: {} });
  const box = await client.boxes.create({ name: 'bench-sdk' });
  const url = `${svc.url}/v1/boxes/${box.id}/exec`;
  const headers = { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' };
  const raw = async () => {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ command: 'true' }) });
    const events = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; return_code?: number });
    if (events.find((e) => e.type === 'exit')?.return_code !== 0) throw new Error('raw exec failed');
  };
  const sdk = async () => {
    if ((await box.exec('true')).exitCode !== 0) throw new Error('sdk exec failed');
  };
  for (let i = 0; i < 10; i++) {
    await raw(); // warm both paths
    await sdk();
  }
  const t = { raw: [] as number[], sdk: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    for (const [name, f] of (i % 2
      ? [
          ['raw', raw],
          ['sdk', sdk],
        ]
      : [
          ['sdk', sdk],
          ['raw', raw],
        ]) as ['raw' | 'sdk', () => Promise<void>][]) {
      const t0 = performance.now();
      await f();
      t[name].push(performance.now() - t0);
    }
  }
  console.log(`TypeScript: sdk p50 ${r2(med(t.sdk))} ms, raw fetch p50 ${r2(med(t.raw))} ms, ratio ${r2(med(t.sdk) / med(t.raw))} (${RUNS} each)`);

  const py = `
import sys, time, json, statistics, httpx
import box_desktop._sync
from box_desktop import Client
url, key, box_id, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
client = Client(url=url, api_key=key, env={})
box = client.boxes.get(box_id)
raw_client = httpx.Client(base_url=url, headers={"authorization": f"Bearer {key}"}, timeout=None)
bare_client = httpx.Client(base_url=url, headers={"authorization": f"Bearer {key}"}, timeout=None)
# the best raw client: TCP_NODELAY (the SDK's own setting; httpx 0.23 has no option for it)
raw_client._transport._pool._network_backend = box_desktop._sync.NoDelayBackend(raw_client._transport._pool._network_backend)
def raw():
    with raw_client.stream("POST", f"/v1/boxes/{box_id}/exec", content=b'{"command":"true"}', headers={"content-type": "application/json"}) as r:
        events = [json.loads(l) for l in r.iter_lines() if l.strip()]
    assert next(e for e in events if e["type"] == "exit")["return_code"] == 0
def bare():
    with bare_client.stream("POST", f"/v1/boxes/{box_id}/exec", content=b'{"command":"true"}', headers={"content-type": "application/json"}) as r:
        events = [json.loads(l) for l in r.iter_lines() if l.strip()]
    assert next(e for e in events if e["type"] == "exit")["return_code"] == 0
def sdk():
    assert box.exec("true").exit_code == 0
for _ in range(10):
    raw(); sdk(); bare()
t = {"raw": [], "sdk": [], "bare": []}
for i in range(runs):
    for name, f in ((("raw", raw), ("sdk", sdk), ("bare", bare)) if i % 2 else (("sdk", sdk), ("raw", raw), ("bare", bare))):
        t0 = time.perf_counter(); f(); t[name].append((time.perf_counter() - t0) * 1000)
s, r, b = (statistics.median(t[k]) for k in ("sdk", "raw", "bare"))
print(f"Python: sdk p50 {s:.2f} ms, raw httpx (TCP_NODELAY) p50 {r:.2f} ms, ratio {s / r:.2f}; bare httpx (Nagle on) p50 {b:.2f} ms, ratio {s / b:.2f} ({runs} each)")
`;
  fs.writeFileSync(path.join(tmp, 'bench.py'), py);
  // asynchronous: the service answering it runs in this process
  const out = await new Promise<string>((resolve, reject) =>
    execFile(python, [path.join(tmp, 'bench.py'), svc.url, svc.key, box.id, String(RUNS)], (e, stdout, stderr) =>
      e ? reject(new Error(stderr)) : resolve(stdout),
    ),
  );
  process.stdout.write(out);
  await box.terminate();
} finally {
  await svc.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
