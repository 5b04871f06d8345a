/**
 * Runs @modelcontextprotocol/conformance's server scenarios against /mcp of a service started
 * from this checkout (FakeRuntime boxes, a fresh data dir), then prints one line per scenario.
 * Started by scripts/judge/mcp-conformance.sh (argument: the conformance package's CLI).
 *
 * The conformance CLI connects without credentials (it has no option for headers), and /mcp
 * needs an API key: a small proxy on another loopback port adds `Authorization: Bearer <key>`
 * and passes everything else on untouched (Host and Origin too, so the service's own
 * DNS-rebinding guard is what the dns-rebinding-protection scenario meets).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService } from '../../src-server/test-support/harness.js';
import { FakeRuntime } from '../../src-server/test-support/fake-runtime.js';

const cli = process.argv[2];
if (!cli) throw new Error('usage: mcp-conformance-run.ts <path of the conformance CLI>');
const svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
const target = new URL(svc.url);
const proxy = http.createServer((req, res) => {
  const out = http.request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${svc.key}` } },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  req.pipe(out);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const port = (proxy.address() as { port: number }).port;
const outDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
const url = `http://localhost:${port}/mcp`;
console.log(`conformance against ${url} (service ${svc.url}), results in ${outDir}`);
// Not spawnSync: the service runs in this process and must keep answering.
await once(spawn(process.execPath, [cli, 'server', '--url', url, '--output-dir', outDir], { stdio: 'inherit' }), 'exit');
proxy.close();
await svc.close();

// One line per scenario: passed when none of its checks is a FAILURE (warnings listed).
console.log('\nscenario | result | failed or warned checks');
for (const dir of readdirSync(outDir).sort()) {
  let checks: { id: string; status: string; errorMessage?: string }[];
  try {
    checks = JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8'));
  } catch {
    continue;
  }
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const failed = bad.some((c) => c.status === 'FAILURE');
  const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
  console.log(`${name} | ${failed ? 'FAIL' : 'pass'} | ${bad.map((c) => `${c.status} ${c.id}: ${(c.errorMessage ?? '').slice(0, 120)}`).join('; ')}`);
}
