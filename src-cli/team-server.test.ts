import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedFetch } from '../sdk/typescript/src/tls.js';
import { BoxClient as SdkClient } from '../sdk/typescript/src/index.js';
import { canMakeNetns, makeNetns, spawnHeadless, type Headless, type Netns } from '../src-server/test-support/netns.js';
import { runCli } from './test-support/cli.js';

/*
 * Two services on one machine: a local one on loopback, and a "remote" one inside a network
 * namespace this test makes, on TLS at a non-loopback address. The real CLI (bin/box.mjs)
 * adds the remote as a context (pinning its certificate), switches between the two, refuses
 * a wrong fingerprint, and the remote refuses a Host it does not serve.
 */
const LOCAL_KEY = 'bxk_team_local_0000000000000000000000';
const REMOTE_KEY = 'bxk_team_remote_000000000000000000000';

let ns: Netns;
let local: Headless;
let remote: Headless;
let home: string;
let remoteUrl: string;
let localUrl: () => string;
const cli = (args: string[], env: Record<string, string> = {}, input?: string) =>
  runCli({ HOME: home, BOX_DATA_DIR: '', BOX_API_KEY: LOCAL_KEY, ...env }, args, { input });

describe.skipIf(!canMakeNetns())('team server: contexts against a remote service on TLS in a network namespace', () => {
  beforeAll(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'box-team-home-'));
    ns = makeNetns();
    const env = { HOME: home, BOX_IMAGE_CACHE: process.env.BOX_IMAGE_CACHE ?? path.join(home, 'image-cache') };
    [local, remote] = await Promise.all([
      spawnHeadless({ args: ['--port', '0', '--data-dir', path.join(home, 'local'), '--web-ui', 'none'], env: { ...env, BOX_API_KEY: LOCAL_KEY } }),
      spawnHeadless({
        args: ['--listen', `${ns.nsAddr}:8443`, '--data-dir', path.join(home, 'remote'), '--web-ui', 'none', '--allowed-hosts', 'box.team.test'],
        // its own home: another machine's service (and it must not touch this one's endpoint record)
        env: { ...env, HOME: path.join(home, 'remote-home'), BOX_API_KEY: REMOTE_KEY },
        netns: ns.name,
      }),
    ]);
    remoteUrl = remote.url;
    localUrl = () => local.url;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([local?.stop(), remote?.stop()]);
    ns?.destroy();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('the remote serves HTTPS only, at its non-loopback address, and prints its fingerprint', async () => {
    expect(remoteUrl).toBe(`https://${ns.nsAddr}:8443`);
    expect(remote.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // plain HTTP is not served there
    await expect(fetch(`http://${ns.nsAddr}:8443/v1/health`, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
  });

  it('a Host the remote does not serve gets 403 host_not_allowed; an allowed one is answered', async () => {
    const f = pinnedFetch({ fingerprint: remote.fingerprint! });
    const evil = await f(`${remoteUrl}/v1/whoami`, { headers: { host: 'rebind.attacker.example', authorization: `Bearer ${REMOTE_KEY}` } });
    expect(evil.status).toBe(403);
    const body = (await evil.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('host_not_allowed');
    expect(body.error.message).toContain('rebind.attacker.example');
    expect((await f(`${remoteUrl}/v1/health`, { headers: { host: 'box.team.test:8443' } })).status).toBe(200);
    expect((await f(`${remoteUrl}/v1/health`)).status).toBe(200);
  });

  it('refuses a wrong fingerprint with a clear message, sending no key', async () => {
    const wrong = '01:'.repeat(31) + '01';
    const r = await cli(['context', 'add', 'remote', remoteUrl, '--fingerprint', wrong, '--key', REMOTE_KEY]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`expected SHA-256 ${wrong}, presented ${remote.fingerprint}`);
    expect(r.stderr).toContain('no key was sent');
    expect(fs.existsSync(path.join(home, '.box-desktop', 'contexts.json'))).toBe(false);
  });

  it('adds the remote as a context (key on stdin), pinning and showing its fingerprint; use/ls/BOX_CONTEXT switch between the two', async () => {
    const before = await cli(['whoami']);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain(local.url);

    const add = await cli(['context', 'add', 'remote', remoteUrl], {}, `${REMOTE_KEY}\n`);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain(`has SHA-256 fingerprint ${remote.fingerprint}`);
    expect(add.stderr).toContain('Pinned');
    expect(add.stdout).toContain('context remote');
    const file = path.join(home, '.box-desktop', 'contexts.json');
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');

    expect((await cli(['context', 'use', 'remote'])).code).toBe(0);
    const onRemote = await cli(['whoami']);
    expect(onRemote.code, onRemote.stderr).toBe(0);
    expect(onRemote.stdout).toContain(remoteUrl);
    const boxes = await cli(['boxes', 'list', '--json']);
    expect(boxes.code, boxes.stderr).toBe(0);

    const ls = await cli(['context', 'ls']);
    expect(ls.stdout).toMatch(/\*\s+remote\s+https:\/\//);

    const overridden = await cli(['whoami'], { BOX_CONTEXT: 'local' });
    expect(overridden.stdout).toContain(local.url);
    const unknown = await cli(['whoami'], { BOX_CONTEXT: 'nope' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('BOX_CONTEXT=nope: no such context (known: remote');

    // the TypeScript SDK reads the same context and pins the same certificate
    const sdk = new SdkClient({ env: { HOME: home, BOX_CONTEXT: 'remote' } });
    expect(sdk.url).toBe(remoteUrl);
    const list = await sdk.boxes.list();
    expect(Array.isArray(list.data)).toBe(true);

    expect((await cli(['context', 'use', 'local'])).code).toBe(0);
    const back = await cli(['whoami']);
    expect(back.stdout).toContain(local.url);
  });

  it('a context whose pinned fingerprint no longer matches is refused with what to do', async () => {
    const file = path.join(home, '.box-desktop', 'contexts.json');
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { contexts: Record<string, { tls_fingerprint: string }> };
    const wrong = 'AB:'.repeat(31) + 'AB';
    data.contexts.remote!.tls_fingerprint = wrong;
    fs.writeFileSync(file, JSON.stringify(data));
    const r = await cli(['whoami'], { BOX_CONTEXT: 'remote' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`is not the one pinned for it: pinned SHA-256 ${wrong}, presented ${remote.fingerprint}`);
    expect(r.stderr).toContain('npx box context rm remote');
    const rm = await cli(['context', 'rm', 'remote']);
    expect(rm.code).toBe(0);
    expect((await cli(['context', 'ls', '--json'])).stdout).not.toContain('"remote"');
  });

  it('an invite link yields a key for a new member through `box context add --invite`', async () => {
    const inv = await cli(['invite', 'carol'], { BOX_URL: remoteUrl, BOX_API_KEY: REMOTE_KEY });
    // BOX_URL has no pin: the CLI cannot reach a made certificate without one
    expect(inv.code).not.toBe(0);
    const admin = await cli(['context', 'add', 'admin', remoteUrl, '--key', REMOTE_KEY, '--yes']);
    expect(admin.code, admin.stderr).toBe(0);
    const made = await cli(['invite', 'carol'], { BOX_CONTEXT: 'admin' });
    expect(made.code, made.stderr).toBe(0);
    const link = made.stdout.trim();
    expect(link).toMatch(/\/ui\/invite\?token=/);
    const joined = await cli(['context', 'add', 'carol', remoteUrl, '--invite', link]);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toContain('user key');
    const me = await cli(['whoami', '--json'], { BOX_CONTEXT: 'carol' });
    expect(JSON.parse(me.stdout)).toMatchObject({ key_scope: 'user' });
    const reused = await cli(['context', 'add', 'carol2', remoteUrl, '--invite', link]);
    expect(reused.code).toBe(4);
    expect(reused.stderr).toContain('already used');
  });

  it("`box mcp` and `box e2b env` work against a context: MCP tools on the remote, over the pinned certificate; E2B's SDK with the printed variables", async () => {
    // an MCP client, as an agent host runs it, on `box mcp` with BOX_CONTEXT naming the remote
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const env = { PATH: process.env.PATH!, HOME: home, BOX_CONTEXT: 'admin', BOX_DATA_DIR: '/nonexistent-box-data-dir' };
    const bin = path.resolve(import.meta.dirname, '../bin/box.mjs');
    const c = new Client({ name: 'team-mcp-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env, stderr: 'pipe' });
    let said = '';
    transport.stderr!.on('data', (b: Buffer) => (said += b.toString()));
    await c.connect(transport);
    try {
      const r = (await c.callTool({ name: 'box_list', arguments: {} })) as { content: Array<{ text?: string }>; isError?: boolean };
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect(said).toContain(`for the service at ${remoteUrl} (from context admin (BOX_CONTEXT))`);
    } finally {
      await c.close();
    }

    // a changed certificate: `box mcp` answers the tool call with the pin's message, no key sent
    const file = path.join(home, '.box-desktop', 'contexts.json');
    const saved = fs.readFileSync(file, 'utf8');
    const data = JSON.parse(saved) as { contexts: Record<string, { tls_fingerprint: string }> };
    data.contexts.admin!.tls_fingerprint = 'CD:'.repeat(31) + 'CD';
    fs.writeFileSync(file, JSON.stringify(data));
    const bad = new Client({ name: 'team-mcp-test', version: '1.0.0' });
    await bad.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env, stderr: 'ignore' }));
    try {
      const r = (await bad.callTool({ name: 'box_list', arguments: {} })) as { content: Array<{ text?: string }>; isError?: boolean };
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain(`presented ${remote.fingerprint}`);
    } finally {
      await bad.close();
      fs.writeFileSync(file, saved);
    }

    // E2B: the variables for the context, then E2B's own SDK (npm `e2b`) lists the remote's sandboxes with them
    const printed = await cli(['e2b', 'env'], { BOX_CONTEXT: 'admin' });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`export E2B_API_URL='${remoteUrl}/e2b/api'`);
    expect(printed.stdout).toContain(`export E2B_SANDBOX_URL='${remoteUrl}/e2b/sandbox'`);
    expect(printed.stdout).toContain(`export E2B_VOLUME_API_URL='${remoteUrl}/e2b/api'`);
    expect(printed.stdout).toContain(`export E2B_API_KEY='${REMOTE_KEY}'`);
    const vars = JSON.parse((await cli(['e2b', 'env', '--json'], { BOX_CONTEXT: 'admin' })).stdout) as Record<string, string>;
    expect(fs.readFileSync(vars.NODE_EXTRA_CA_CERTS!, 'utf8')).toContain('BEGIN CERTIFICATE');
    const local = JSON.parse((await cli(['e2b', 'env', '--json'], { BOX_CONTEXT: 'local' })).stdout) as Record<string, string>;
    expect(local.E2B_API_URL).toBe(`${localUrl()}/e2b/api`);
    const script = "import('e2b').then(async ({ Sandbox }) => { const items = await Sandbox.list().nextItems(); console.log('listed ' + items.length); })";
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH!, HOME: home, ...vars }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/listed \d+/);
  }, 180_000);
});
