import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

let svc: TestService;
let env: { BOX_URL: string; BOX_API_KEY: string };
const box = (args: string[], o?: Parameters<typeof runCli>[2]) => runCli(env, args, o);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-cli-'));

beforeAll(async () => {
  svc = await startTestService({
    runtime: (d) => new FakeRuntime(d),
  });
  env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
  const created = await box(['boxes', 'create', 'cli1', '--app', 'cli', '--size', 'm', '--json']);
  expect(created.code, created.stderr).toBe(0);
});
afterAll(async () => {
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('identity and errors', () => {
  it('whoami speaks as the key from BOX_API_KEY, as JSON and as text', async () => {
    const me = await (await svc.api('/v1/whoami')).json();
    const j = await box(['whoami', '--json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual(me);
    const t = await box(['whoami']);
    expect(t.stdout).toContain(`key_id:    ${me.key_id}`);
    expect(t.stdout).toContain(svc.url);
  });

  it('reads the key from <BOX_DATA_DIR>/api-key when BOX_API_KEY is unset', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'dd-'));
    fs.writeFileSync(path.join(dir, 'api-key'), `${svc.key}\n`);
    const r = await runCli({ BOX_URL: svc.url, BOX_DATA_DIR: dir }, ['whoami', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const none = await runCli({ BOX_URL: svc.url, BOX_DATA_DIR: path.join(tmp, 'empty') }, ['whoami']);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/^error: no API key: set BOX_API_KEY/);
  });

  it('a 400 prints the envelope as one line naming the param, exit 2', async () => {
    const r = await box(['boxes', 'create', 'Not_A_Dns_Label']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: .*must be 1-63 lowercase letters.* \(param: name\)\n$/);
  });

  it('a 404 exits 4 with the service message; a 401 exits 3; no service exits 1', async () => {
    const missing = await box(['boxes', 'get', 'box_00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: No box box_00000000-0000-4000-8000-000000000000 in this organization\. \(param: box_id\)\n$/);
    const bad = await runCli({ BOX_URL: svc.url, BOX_API_KEY: 'bxk_wrong' }, ['boxes', 'list']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/^error: .* \(code: invalid_api_key\)\n$/);
    const down = await runCli({ BOX_URL: 'http://127.0.0.1:9', BOX_API_KEY: 'x' }, ['whoami']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error: cannot reach the box service at http:\/\/127\.0\.0\.1:9\/v1\/whoami/);
  });

  it('usage errors exit 2 and show the usage line', async () => {
    const r = await box(['boxes', 'create']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: box boxes create <name>');
    const u = await box(['nosuch']);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('unknown command "box nosuch"');
  });
});

describe('boxes and exec', () => {
  it('create/list/get by name', async () => {
    const list = await box(['boxes', 'list', '--json']);
    const boxes = JSON.parse(list.stdout) as { name: string; status: string; vcpu_count: number }[];
    expect(boxes.find((b) => b.name === 'cli1')).toMatchObject({ status: 'running', vcpu_count: 2 });
    const text = await box(['boxes', 'list']);
    expect(text.stdout).toMatch(/^BOX ID\s+NAME\s+STATUS/);
    expect(text.stdout).toMatch(/cli1\s+running/);
    const got = await box(['boxes', 'get', 'cli1', '--json']);
    expect(JSON.parse(got.stdout).name).toBe('cli1');
    // Published ports come with their address (issue 29), the one the API record names.
    const web = await box(['boxes', 'create', 'cli-web', '--app', 'cli', '--port', '8080', '--port', '9000', '--json']);
    expect(web.code, web.stderr).toBe(0);
    const rec = (await (await svc.api(`/v1/boxes/${JSON.parse(web.stdout).box_id}`)).json()) as { ingress_urls: { guest_port: number; url: string }[] };
    expect(rec.ingress_urls.map((u) => u.guest_port)).toEqual([8080, 9000]);
    expect(rec.ingress_urls[0]!.url).toMatch(/^http:\/\/cli-web\.box\.localhost:\d+\/$/);
    const shown = await box(['boxes', 'get', 'cli-web']);
    expect(shown.stdout).toContain(`urls: `);
    for (const u of rec.ingress_urls) expect(shown.stdout).toContain(u.url);
    const apps = await box(['apps', 'list', '--json']);
    expect(JSON.parse(apps.stdout).data.find((a: { app_name: string }) => a.app_name === 'cli').box_count).toBe(2);
  });

  it("exec streams stdout and stderr apart and exits with the command's code", async () => {
    const r = await box(['exec', 'cli1', '--', 'echo out; echo err >&2; exit 7']);
    expect(r).toMatchObject({ code: 7, stdout: 'out\n', stderr: 'err\n' });
    const argv = await box(['exec', 'cli1', '--', 'printf', '%s|', 'a b', '$HOME']);
    expect(argv).toMatchObject({ code: 0, stdout: 'a b|$HOME|' });
    const env2 = await box(['exec', 'cli1', '--env', 'GREETING=hi there', '--', 'echo "$GREETING"']);
    expect(env2.stdout).toBe('hi there\n');
  });

  it('exec -i pipes stdin through the stdin endpoint (binary-safe, with eof)', async () => {
    const data = randomBytes(300_000);
    const r = await box(['exec', 'cli1', '-i', '--', 'sha256sum'], { input: data });
    expect(r.code, r.stderr).toBe(0);
    const { createHash } = await import('node:crypto');
    expect(r.stdout.split(' ')[0]).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('exec --tty without a local terminal still sends stdin and exits with the code', async () => {
    const r = await box(['exec', 'cli1', '--tty', '--', 'read l; echo "got $l"; exit 3'], { input: 'line1\n' });
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('got line1');
  });

  it('lifecycle: pause, illegal pause → exit 5 with the runtime code, resume', async () => {
    expect((await box(['boxes', 'pause', 'cli1'])).stdout).toMatch(/ paused\n$/);
    const again = await box(['boxes', 'pause', 'cli1']);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/^error: .*\(code: failed_precondition\)\n$/);
    expect((await box(['boxes', 'resume', 'cli1'])).stdout).toMatch(/ running/);
  });
});

describe('cp', () => {
  it('round-trips a big binary file byte for byte, with progress on stderr', async () => {
    const src = path.join(tmp, 'big.bin');
    const bytes = randomBytes(12 * 1024 * 1024);
    fs.writeFileSync(src, bytes);
    const up = await box(['cp', src, 'cli1:/data/sub/big.bin']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toMatch(/big\.bin → \[#+\] 100% 12 MiB of 12 MiB/);
    const dst = path.join(tmp, 'back.bin');
    const down = await box(['cp', 'cli1:/data/sub/big.bin', dst]);
    expect(down.code, down.stderr).toBe(0);
    expect(fs.readFileSync(dst).equals(bytes)).toBe(true);
    expect(fs.existsSync(`${dst}.box-partial`)).toBe(false);
  });

  it('small files: no progress; "-" streams stdin and stdout; a missing file exits 4', async () => {
    const up = await box(['cp', '-', 'cli1:/data/small.txt', '--mode', '0600'], { input: 'hello box\n' });
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toBe('10 B written to cli1:/data/small.txt\n');
    const cat = await box(['cp', 'cli1:/data/small.txt', '-']);
    expect(cat.stdout).toBe('hello box\n');
    const seen = await box(['exec', 'cli1', '--', 'stat -c %a data/small.txt']);
    expect(seen.stdout).toBe('600\n');
    const missing = await box(['cp', 'cli1:/data/none.txt', path.join(tmp, 'none')]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: No such file or directory in the box: \/data\/none\.txt \(param: path, code: not_found\)\n$/);
    expect(fs.existsSync(path.join(tmp, 'none'))).toBe(false);
  });
});
