/**
 * E2B's REST API and envd's process service with the stock `e2b` SDK against the service
 * (fake runtime: host processes stand in for the VM, fast). The real-VM test is e2b.vm.test.ts.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandExitError, Sandbox, SandboxNotFoundError } from 'e2b';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../test-support/harness.js';

let svc: TestService;
let opts: { apiKey: string; apiUrl: string; sandboxUrl: string };

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2b-'), runtime: (d) => new FakeRuntime(d) });
  opts = { apiKey: svc.key, apiUrl: `${svc.url}/e2b/api`, sandboxUrl: `${svc.url}/e2b/sandbox` };
});
afterAll(async () => {
  await svc?.close();
});

describe('E2B SDK on the fake runtime', () => {
  it('creates, runs, lists, kills', async () => {
    const sbx = await Sandbox.create({ ...opts, metadata: { who: 'test' } });
    const r = await sbx.commands.run('echo hello');
    expect(r.stdout).toBe('hello\n');
    await expect(sbx.commands.run('exit 3')).rejects.toBeInstanceOf(CommandExitError);
    const page = await Sandbox.list({ ...opts, query: { metadata: { who: 'test' } } }).nextItems();
    expect(page.map((s) => s.sandboxId)).toEqual([sbx.sandboxId]);
    const info = await sbx.getInfo();
    expect(info.state).toBe('running');
    expect(await sbx.kill()).toBe(true);
    await expect(Sandbox.getInfo(sbx.sandboxId, opts)).rejects.toBeInstanceOf(SandboxNotFoundError);
    expect(await Sandbox.kill(sbx.sandboxId, opts)).toBe(false);
  });
});
