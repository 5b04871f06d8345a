/**
 * E2B's features Box has under its own names (issue 33), with the stock `e2b` SDK against
 * real microVMs: network rules enforced by the egress proxy (an allowed host answers, others
 * are refused, https to a denyOut host at CONNECT), a secret put into requests by the proxy
 * (never in the sandbox), a volume mounted with volumeMounts, a filesystem-only pause resumed
 * by connect, the MCP gateway option's error, and a template built with `Template.build` by
 * Box's image builder (symlinks copied as links) and used at create.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandExitError, Sandbox, SandboxError, Secret, Template, Volume } from 'e2b';
import { killSandboxesAndClose, pointE2BAt } from './test-support/e2b-env.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

const VM = 900_000;
let svc: TestService;
let host: http.Server;
let hostPort: number;

beforeAll(async () => {
  host = http.createServer((req, res) => res.end(req.url === '/echo' ? `token=${String(req.headers['x-token'])}` : `hello from the host ${req.url}`));
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', () => r()));
  hostPort = (host.address() as net.AddressInfo).port;
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2bfvm-') });
  pointE2BAt(svc);
}, VM);
afterAll(async () => {
  await killSandboxesAndClose(svc);
  host?.close();
}, VM);

describe('E2B features on real boxes', () => {
  it(
    'enforces network rules: an allowed host answers, the rest is refused; updateNetwork applies live',
    async () => {
      const sbx = await Sandbox.create({ network: { denyOut: ['0.0.0.0/0'], allowOut: ['host.box.internal'] }, requestTimeoutMs: VM });
      const ok = await sbx.commands.run(`curl -sS http://host.box.internal:${hostPort}/allowed`);
      expect(ok.stdout).toBe('hello from the host /allowed');
      const denied = await sbx.commands.run('curl -sS --max-time 10 https://example.com/').catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(CommandExitError);
      expect((denied as CommandExitError).stderr).toContain('403');
      await sbx.updateNetwork({ denyOut: ['host.box.internal', 'example.com'] });
      const now = await sbx.commands.run(`curl -sS -w ' %{http_code}' http://host.box.internal:${hostPort}/denied`);
      expect(now.stdout).toMatch(/host\.box\.internal is in denyOut\.\n 403$/);
      // https to a denyOut host fails at CONNECT, as behind E2B's firewall (not a completed TLS answering 403)
      const tls = await sbx.commands.run('curl -sS --max-time 10 https://example.com/').catch((e: unknown) => e);
      expect(tls).toBeInstanceOf(CommandExitError);
      expect((tls as CommandExitError).stderr).toContain('403');
      await sbx.kill();
    },
    VM,
  );

  it(
    'puts an E2B secret into requests through the egress proxy; the sandbox never holds the value',
    async () => {
      await Secret.create('host-token', 'tok-e2b-secret-value');
      const sbx = await Sandbox.create({
        network: { rules: { 'host.box.internal': [{ transform: { headers: { 'X-Token': Secret.fill('host-token') } } }] } },
        requestTimeoutMs: VM,
      });
      const got = await sbx.commands.run(`curl -sS http://host.box.internal:${hostPort}/echo`);
      expect(got.stdout).toBe('token=tok-e2b-secret-value');
      const inside = await sbx.commands.run('(env; cat /etc/environment 2>/dev/null) | grep -c tok-e2b-secret-value || true');
      expect(inside.stdout.trim()).toBe('0');
      await sbx.kill();
      expect(await Secret.destroy('host-token')).toBe(true);
    },
    VM,
  );

  it(
    'mounts an E2B volume (a Box volume) with volumeMounts; a filesystem-only pause resumes by connect (reboot)',
    async () => {
      const vol = await Volume.create('e2b-vm-volume');
      const sbx = await Sandbox.create({ volumeMounts: { '/mnt/vol': vol }, requestTimeoutMs: VM });
      await sbx.commands.run('echo written-in-the-sandbox > /mnt/vol/from-e2b.txt', { user: 'root' });
      const file = await svc.api(`/v1/box-volumes/${vol.volumeId}/files?path=from-e2b.txt`);
      expect(await file.text()).toBe('written-in-the-sandbox\n');
      // E2B's volume content API sees the same files, both ways, without the sandbox
      const at = { apiUrl: process.env.E2B_API_URL };
      expect(await vol.readFile('from-e2b.txt', at)).toBe('written-in-the-sandbox\n');
      await vol.writeFile('/api/from-api.txt', 'written-by-the-api', { ...at, force: true });
      expect((await sbx.commands.run('cat /mnt/vol/api/from-api.txt', { user: 'root' })).stdout).toBe('written-by-the-api');
      await sbx.commands.run('echo kept > /root/disk.txt; sync; echo gone > /dev/shm/mem.txt', { user: 'root' });
      expect(await Sandbox.pause(sbx.sandboxId, { keepMemory: false })).toBe(true);
      const back = await Sandbox.connect(sbx.sandboxId, { requestTimeoutMs: VM });
      const after = await back.commands.run('cat /root/disk.txt; cat /mnt/vol/from-e2b.txt; test -e /dev/shm/mem.txt && echo memory-kept || echo rebooted', {
        user: 'root',
      });
      expect(after.stdout).toBe('kept\nwritten-in-the-sandbox\nrebooted\n');
      await back.kill();
      expect(await Volume.destroy(vol.volumeId)).toBe(true);
    },
    VM,
  );

  it(
    "answers the MCP gateway option with E2B's error naming Box's own MCP server",
    async () => {
      const err = await Sandbox.create({ mcp: { exa: { apiKey: 'x' } } as never, requestTimeoutMs: VM }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as Error).message).toMatch(/^Failed to start MCP gateway: Box does not run E2B's MCP gateway\. Box serves its own MCP server/);
    },
    VM,
  );

  it(
    'builds a template with Template.build (copy, runCmd, setEnvs, its logs) and creates a sandbox from it',
    async () => {
      const ctx = fs.mkdtempSync('/tmp/bxe2btpl-');
      fs.writeFileSync(`${ctx}/hello.txt`, 'hello from the template\n');
      fs.mkdirSync(`${ctx}/folder`);
      fs.writeFileSync(`${ctx}/folder/a.txt`, 'a\n');
      fs.symlinkSync('a.txt', `${ctx}/folder/link.txt`);
      const logs: string[] = [];
      const t = Template({ fileContextPath: ctx })
        .fromBaseImage()
        .copy('hello.txt', '/opt/hello.txt')
        .copy('folder', '/opt/folder')
        .runCmd('cp /opt/hello.txt /opt/copied.txt && echo built-step-ran')
        .setEnvs({ TEMPLATE_GREETING: 'hi from setEnvs' });
      const built = await Template.build(t, 'e2b-features-vm', { onBuildLogs: (l) => void logs.push(l.message), requestTimeoutMs: VM });
      expect(built.templateId).toBe('e2b-features-vm');
      expect(logs).toContain("Uploaded 'hello.txt'");
      expect(logs).toContain('built-step-ran');
      expect(logs.at(-2)).toBe('Template e2b-features-vm is ready');
      const sbx = await Sandbox.create(built.templateId, { requestTimeoutMs: VM });
      expect((await sbx.commands.run('cat /opt/copied.txt; echo $TEMPLATE_GREETING')).stdout).toBe('hello from the template\nhi from setEnvs\n');
      // a symlink is copied as a link, as E2B copies it
      expect((await sbx.commands.run('readlink /opt/folder/link.txt; cat /opt/folder/link.txt')).stdout).toBe('a.txt\na\n');
      // its tags: the build took 'default'; another tag points to the same build, and a sandbox starts from name:tag
      expect((await Template.getTags('e2b-features-vm')).map((x) => x.tag)).toEqual(['default']);
      expect(await Template.assignTags('e2b-features-vm:default', 'prod')).toMatchObject({ tags: ['prod'], buildId: built.buildId });
      const tagged = await Sandbox.create('e2b-features-vm:prod', { requestTimeoutMs: VM });
      expect((await tagged.commands.run('cat /opt/copied.txt')).stdout).toBe('hello from the template\n');
      await tagged.kill();
      await Template.removeTags('e2b-features-vm', 'prod');
      await expect(Sandbox.create('e2b-features-vm:prod', { requestTimeoutMs: VM })).rejects.toThrow(/404: template/);
      // the template and its build are listed, and outlive nothing but their delete
      const listed = (await (await fetch(`${svc.url}/e2b/api/templates`, { headers: { 'X-API-Key': svc.key } })).json()) as Array<{
        templateID: string;
        buildStatus: string;
      }>;
      expect(listed).toContainEqual(expect.objectContaining({ templateID: 'e2b-features-vm', buildStatus: 'ready' }));
      await sbx.kill();
      fs.rmSync(ctx, { recursive: true });
    },
    VM,
  );
});
