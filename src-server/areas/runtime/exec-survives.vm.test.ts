/**
 * One real microVM (QEMU; TCG on these machines) through the HTTP API: a background command
 * keeps running — the same process, its output continuing — across pause/resume and
 * sleep/wake-by-exec, and can still be cancelled afterwards (PROTOCOL.md, "Detached execs").
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { testImageCache } from './test-support/vm-image.js';

const VM_TIMEOUT = 300_000;
const COUNTER = 'i=0; while true; do echo $i; i=$((i+1)); sleep 0.2; done';
let svc: TestService;
let boxId: string;
let execId: string;

type Ev = { type: string; data?: string; status?: string; exec_id?: string };

const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};

/**
 * Attaches to the counter (same idempotency key: the session replays its output from the
 * start, then streams live) and reads until `enough` holds for the numbers printed so far.
 */
async function counterOutput(enough: (n: number[]) => boolean, ms = 60_000): Promise<number[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const res = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command: COUNTER, idempotency_key: 'counter' }, signal: ac.signal });
  expect(res.headers.get('x-box-exec-id')).toBe(execId);
  let text = '';
  let rest = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop()!;
      for (const l of lines.filter(Boolean)) {
        const e = JSON.parse(l) as Ev;
        if (e.type === 'stdout') text += Buffer.from(e.data!, 'base64').toString();
        if (e.type === 'exit') throw new Error(`the counter ended: ${l}`);
      }
      const numbers = text.split('\n').slice(0, -1).map(Number);
      if (enough(numbers)) return numbers;
    }
    throw new Error('the stream ended');
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

/** One process counting on: every number once, in order, from 0. */
function expectContinuous(numbers: number[]) {
  expect(numbers).toEqual(numbers.map((_, i) => i));
}

const execStatus = async () => (await (await svc.api(`/v1/boxes/${boxId}/exec`)).json()).data.find((e: { exec_id: string }) => e.exec_id === execId)?.status;

beforeAll(async () => {
  testImageCache();
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxsv-') });
  const appId = (await post('/v1/apps/find', { name: 'survive', mint_if_missing: true })).id;
  const box = await post('/v1/boxes', { app_id: appId, name: 'survive1' });
  expect(box.status).toBe('running');
  boxId = box.box_id;
}, VM_TIMEOUT);

afterAll(async () => {
  if (boxId) await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST' });
  await svc?.close();
}, VM_TIMEOUT);

describe('a background command survives', () => {
  it(
    'pause → resume: the same process goes on counting',
    async () => {
      const res = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command: COUNTER, background: true, idempotency_key: 'counter' } });
      execId = res.headers.get('x-box-exec-id')!;
      await res.text();
      const before = await counterOutput((n) => n.length >= 5);
      expect((await post(`/v1/boxes/${boxId}/pause`)).status).toBe('paused');
      expect(await execStatus()).toBe('running');
      expect((await post(`/v1/boxes/${boxId}/resume`)).resume_state).toBe('running');
      const after = await counterOutput((n) => n.length >= before.length + 10);
      expectContinuous(after);
      expect(await execStatus()).toBe('running');
    },
    VM_TIMEOUT,
  );

  it(
    'sleep → wake by another exec: still the same process, output continuing',
    async () => {
      const before = await counterOutput((n) => n.length >= 1);
      expect((await post(`/v1/boxes/${boxId}/sleep`)).status).toBe('sleeping');
      const woke = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command: 'echo awake' } });
      expect(await woke.text()).toContain('"exit"');
      const after = await counterOutput((n) => n.length >= before.length + 10);
      expectContinuous(after);
    },
    VM_TIMEOUT,
  );

  it(
    'cancel afterwards ends it as cancelled',
    async () => {
      expect((await post(`/v1/boxes/${boxId}/exec/${execId}/cancel`)).status).toBe('cancelling');
      const waited = await post(`/v1/boxes/${boxId}/exec/${execId}/wait`);
      expect(waited.status).toBe('cancelled');
      expectContinuous(waited.stdout.trim().split('\n').map(Number));
      // the process group is gone from the guest
      const ps = await svc.api(`/v1/boxes/${boxId}/exec`, {
        method: 'POST',
        json: { command: `for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done 2>/dev/null | grep -c '[w]hile true' || true` },
      });
      const ev = (await ps.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Ev);
      expect(
        Buffer.from(ev.find((e) => e.type === 'stdout')!.data!, 'base64')
          .toString()
          .trim(),
      ).toBe('0');
    },
    VM_TIMEOUT,
  );
});

describe('the exec hot path', () => {
  const run = async (command: string | string[], extra: Record<string, unknown> = {}) => {
    const res = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command, ...extra } });
    const ev = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Ev & { return_code?: number; message?: string });
    const out = ev
      .filter((e) => e.type === 'stdout')
      .map((e) => Buffer.from(e.data!, 'base64').toString())
      .join('');
    return { out, exit: ev.find((e) => e.type === 'exit'), error: ev.find((e) => e.type === 'error') };
  };

  it(
    'under TCG the guest runs without ASLR (translated code is reused), with KVM/HVF with it',
    async () => {
      const { accelerator } = await (await svc.api('/v1/status')).json();
      const { out } = await run('cat /proc/sys/kernel/randomize_va_space');
      expect(out.trim()).toBe(accelerator === 'tcg' ? '0' : '2');
      // and /bin/sh is still Debian's dash, dynamically linked
      expect((await run(['readlink', '-f', '/bin/sh'])).out.trim()).toBe('/usr/bin/dash');
    },
    VM_TIMEOUT,
  );

  it(
    'commands spawned with vfork keep their semantics: PATH from the request env, cwd, user, failures',
    async () => {
      expect((await run('mkdir -p /tmp/bin && printf "#!/bin/sh\\necho mine\\n" > /tmp/bin/only-here && chmod +x /tmp/bin/only-here')).exit?.status).toBe(
        'succeeded',
      );
      expect((await run(['only-here'], { env: { PATH: '/tmp/bin:/usr/bin:/bin' } })).out).toBe('mine\n');
      expect((await run(['pwd'], { cwd: '/tmp' })).out).toBe('/tmp\n');
      expect((await run(['id', '-un'], { user: 'nobody' })).out).toBe('nobody\n');
      const missing = await run(['no-such-command-anywhere']);
      expect(missing.exit?.status).toBe('failed');
      expect(missing.error?.message).toMatch(/no-such-command-anywhere: No such file or directory/);
      // the agent's own environment is untouched by a child's env
      expect((await run(['sh', '-c', 'echo $PATH'])).out).not.toContain('/tmp/bin');
    },
    VM_TIMEOUT,
  );
});
