/**
 * E2B's features Box has under its own names (issue 33), with the stock `e2b` SDK against
 * real microVMs: network rules enforced by the egress proxy (an allowed host answers, others
 * are refused), the MCP gateway option's error, and a template built with `Template.build`
 * by Box's image builder and used at create.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandExitError, Sandbox, SandboxError, Template } from 'e2b';
import { startTestService, type TestService } from '../../test-support/harness.js';

const VM = 900_000;
let svc: TestService;
let host: http.Server;
let hostPort: number;

beforeAll(async () => {
  host = http.createServer((req, res) => res.end(`hello from the host ${req.url}`));
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', () => r()));
  hostPort = (host.address() as net.AddressInfo).port;
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2bfvm-') });
  process.env.E2B_API_URL = `${svc.url}/e2b/api`;
  process.env.E2B_SANDBOX_URL = `${svc.url}/e2b/sandbox`;
  process.env.E2B_API_KEY = svc.key;
}, VM);
afterAll(async () => {
  for (const s of await Sandbox.list({ query: { state: ['running', 'paused'] } })
    .nextItems()
    .catch(() => []))
    await Sandbox.kill(s.sandboxId).catch(() => {});
  await svc?.close();
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
      await sbx.updateNetwork({ denyOut: ['host.box.internal'] });
      const now = await sbx.commands.run(`curl -sS -w ' %{http_code}' http://host.box.internal:${hostPort}/denied`);
      expect(now.stdout).toMatch(/host\.box\.internal is in denyOut\.\n 403$/);
      await sbx.kill();
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
      const logs: string[] = [];
      const t = Template({ fileContextPath: ctx })
        .fromBaseImage()
        .copy('hello.txt', '/opt/hello.txt')
        .runCmd('cp /opt/hello.txt /opt/copied.txt && echo built-step-ran')
        .setEnvs({ TEMPLATE_GREETING: 'hi from setEnvs' });
      const built = await Template.build(t, 'e2b-features-vm', { onBuildLogs: (l) => void logs.push(l.message), requestTimeoutMs: VM });
      expect(built.templateId).toBe('e2b-features-vm');
      expect(logs).toContain("Uploaded 'hello.txt'");
      expect(logs).toContain('built-step-ran');
      expect(logs.at(-2)).toBe('Template e2b-features-vm is ready');
      const sbx = await Sandbox.create(built.templateId, { requestTimeoutMs: VM });
      expect((await sbx.commands.run('cat /opt/copied.txt; echo $TEMPLATE_GREETING')).stdout).toBe('hello from the template\nhi from setEnvs\n');
      await sbx.kill();
      fs.rmSync(ctx, { recursive: true });
    },
    VM,
  );
});
