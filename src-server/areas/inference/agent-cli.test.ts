import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import type { FakeUpstream } from './test-support/fake-upstreams.js';
import { packageBin, startGatewayWithUpstreams } from './test-support/agent-cli.js';

// Issue 24: an agent CLI as its users run it, non-interactive, offline, against the gateway:
// Anthropic's Claude Code (`claude -p`) over Messages, streamed, with its own tools. The model
// (box/echo's tool mode, or a scripted upstream of either style behind the gateway) calls
// Claude Code's first tool; Claude Code runs it and sends the result back; the model answers
// with it: a whole agent loop of two turns. (OpenAI's Codex CLI is not run here; the
// `store: false` it sends on Responses is served since issue 34.)
const claude = packageBin('@anthropic-ai/claude-code', 'bin/claude.exe');

let gw: Awaited<ReturnType<typeof startGatewayWithUpstreams>> | undefined;
let svc: TestService;
let an: FakeUpstream;
let oa: FakeUpstream;
let home = '';
beforeAll(async () => {
  gw = await startGatewayWithUpstreams();
  ({ svc, an, oa } = gw);
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'claude-home-'));
});
afterAll(async () => {
  await gw?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

async function runClaude(model: string) {
  const cwd = fs.mkdtempSync(path.join(home, 'work-'));
  const { stdout } = await promisify(execFile)(claude!, ['-p', 'Paris', '--model', model, '--output-format', 'json'], {
    cwd,
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_BASE_URL: svc.url,
      ANTHROPIC_API_KEY: svc.key,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { is_error: boolean; num_turns: number; terminal_reason: string; result: string };
}

describe.skipIf(!claude)('Claude Code (claude -p) against the gateway', () => {
  it.each([
    ['box/echo', ''],
    ['an/fake-claude', 'result: '],
    ['oa/fake-gpt', 'result: '],
  ])('%s: a tool call, Claude Code runs the tool, the answer carries its result', async (model, prefix) => {
    an.requests.length = 0;
    oa.requests.length = 0;
    const r = await runClaude(model);
    expect(r).toMatchObject({ is_error: false, num_turns: 2, terminal_reason: 'completed' });
    // The tool Claude Code ran answered (an unknown agent type): that text comes back as the answer.
    expect(r.result.startsWith(prefix)).toBe(true);
    expect(r.result).toContain('not found');
    const seen = model.startsWith('an/') ? an.requests : model.startsWith('oa/') ? oa.requests : [];
    if (model !== 'box/echo') {
      const bodies = seen.filter((q) => q.path.endsWith('/messages') || q.path.endsWith('/chat/completions')).map((q) => JSON.stringify(q.body));
      expect(bodies.length).toBeGreaterThanOrEqual(2);
      expect(bodies.at(-1)).toContain(model.startsWith('an/') ? 'tool_result' : '"role":"tool"');
    }
  });
});
