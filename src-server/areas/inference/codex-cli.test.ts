import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import type { FakeUpstream } from './test-support/fake-upstreams.js';
import { packageBin, startGatewayWithUpstreams } from './test-support/agent-cli.js';

// Issue 34: OpenAI's Codex CLI as its users run it (`codex exec`, non-interactive, offline),
// from the npm registry, against the gateway over Responses, streamed, with `store: false`,
// its namespace tools and its own shell tool. The model (box/echo's tool mode, or a scripted
// upstream of either style behind the gateway) calls Codex's first tool, `exec_command`;
// Codex runs the command itself (Box executes nothing for it) and sends the output back; the
// model answers with it. The config is the README's ("Codex CLI").
const codex = packageBin('@openai/codex', 'bin/codex.js');

let gw: Awaited<ReturnType<typeof startGatewayWithUpstreams>> | undefined;
let svc: TestService;
let an: FakeUpstream;
let oa: FakeUpstream;
let home = '';
beforeAll(async () => {
  // A devDependency: a checkout without it fails here rather than skipping the client.
  if (!codex) throw new Error('@openai/codex is not installed (npm ci installs it)');
  gw = await startGatewayWithUpstreams();
  ({ svc, an, oa } = gw);
  // Codex warns that it will not create its helper links under a temporary dir, and goes on.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-home-'));
  fs.mkdirSync(path.join(home, '.codex'));
  fs.writeFileSync(path.join(home, '.codex', 'config.toml'), codexConfig(`${svc.url}/v1`));
});
afterAll(async () => {
  await gw?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** The README's config.toml (web search off: Box does not run OpenAI's hosted web search). */
function codexConfig(baseUrl: string) {
  return [
    'model_provider = "box"',
    'web_search = "disabled"',
    '',
    '[model_providers.box]',
    'name = "Box"',
    `base_url = "${baseUrl}"`,
    'env_key = "BOX_API_KEY"',
    'wire_api = "responses"',
    '',
  ].join('\n');
}

type CodexEvent = { type: string; item?: { type: string; command?: string; aggregated_output?: string; exit_code?: number | null; text?: string } };

async function runCodex(model: string, prompt: string): Promise<CodexEvent[]> {
  const cwd = fs.mkdtempSync(path.join(home, 'work-'));
  const run = promisify(execFile)(process.execPath, [codex!, 'exec', '--json', '--skip-git-repo-check', '--model', model, prompt], {
    cwd,
    timeout: 120_000,
    env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: path.join(home, '.codex'), BOX_API_KEY: svc.key },
  });
  run.child.stdin?.end(); // `codex exec` reads more of the prompt from a stdin that is not a terminal
  const { stdout } = await run;
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as CodexEvent);
}

describe('Codex CLI (codex exec) against the gateway', { timeout: 180_000 }, () => {
  it('box/echo: the model calls exec_command, Codex runs the command, the answer carries its output', async () => {
    const events = await runCodex('box/echo', 'echo codex-ran-$((6*7))');
    const ran = events.find((e) => e.type === 'item.completed' && e.item?.type === 'command_execution')?.item;
    // The shell really ran it: the arithmetic is the shell's, not the model's.
    expect(ran?.command).toContain('echo codex-ran-$((6*7))');
    expect(ran?.exit_code).toBe(0);
    expect(ran?.aggregated_output).toContain('codex-ran-42');
    const answer = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').at(-1)?.item?.text;
    expect(answer).toContain('exited with code 0');
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(events.some((e) => e.type === 'turn.failed' || e.type === 'error')).toBe(false);
  });

  it.each([
    ['oa/fake-gpt', () => oa, '"role":"tool"'],
    ['an/fake-claude', () => an, 'tool_result'],
  ])('%s: a scripted upstream behind the gateway drives the same loop', async (model, up, toolTurn) => {
    up().requests.length = 0;
    const events = await runCodex(model, 'hello');
    const ran = events.find((e) => e.type === 'item.completed' && e.item?.type === 'command_execution')?.item;
    expect(typeof ran?.exit_code).toBe('number'); // Codex ran the command the model asked for
    const answer = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').at(-1)?.item?.text;
    expect(answer?.startsWith('result: ')).toBe(true);
    const bodies = up()
      .requests.filter((q) => q.path.endsWith('/messages') || q.path.endsWith('/chat/completions'))
      .map((q) => JSON.stringify(q.body));
    expect(bodies.length).toBeGreaterThanOrEqual(2);
    // The first turn offered Codex's tools (namespaced ones flattened), the last one carried the tool's result.
    expect(bodies[0]).toContain('exec_command');
    expect(bodies[0]).toContain('multi_agent_v1__');
    expect(bodies.at(-1)).toContain(toolTurn);
  });

  it('nothing Codex sent is stored (store: false), while a default request is', async () => {
    const db = new Database(path.join(svc.dataDir, 'box.db'), { readonly: true });
    const count = () => (db.prepare('SELECT count(*) AS n FROM inference_responses').get() as { n: number }).n;
    const settle = () => new Promise((r) => setTimeout(r, 300)); // the write-behind flushes within 20 ms
    try {
      await settle();
      const before = count();
      const events = await runCodex('box/echo', 'echo not-stored');
      expect(events.at(-1)?.type).toBe('turn.completed');
      await settle();
      expect(count()).toBe(before);
      // The same gateway stores a request that does not say store: false (the check can fail).
      await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 'kept' } });
      await settle();
      expect(count()).toBe(before + 1);
    } finally {
      db.close();
    }
  });
});
