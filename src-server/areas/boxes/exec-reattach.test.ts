/**
 * A streamed exec re-sent with the same idempotency_key after its first stream was dropped
 * (a page reload does this): the service answers a stream again (not a 409, not a JSON
 * replay), for the same exec, replaying its output from the start and then streaming on.
 */
import { expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService } from '../../test-support/harness.js';

type Ev = { type: string; exec_id?: string; seq?: number; data?: string };

it('a dropped exec stream re-attaches by idempotency_key: same exec, output replayed from the start, then live', async () => {
  const svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  try {
    const post = async (p: string, json: unknown) => (await svc.api(p, { method: 'POST', json })).json();
    const app = await post('/v1/apps/find', { name: 'ra', mint_if_missing: true });
    const box = await post('/v1/boxes', { app_id: app.id, name: 'ra' });
    const body = { command: 'i=0; while [ $i -lt 100 ]; do echo $i; i=$((i+1)); sleep 0.2; done', open_stdin: true, idempotency_key: 'k1' };
    const read = async (ms: number) => {
      const ac = new AbortController();
      const res = await svc.api(`/v1/boxes/${box.box_id}/exec`, { method: 'POST', json: body, signal: ac.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/x-ndjson');
      let text = '';
      const t = setTimeout(() => ac.abort(), ms);
      try {
        for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(c).toString();
      } catch (e) {
        expect((e as Error).name).toBe('AbortError');
      }
      clearTimeout(t);
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Ev);
    };
    const first = await read(1000);
    const second = await read(3000);
    expect(first[0]!.type).toBe('started');
    expect(second[0]).toEqual(first[0]);
    const seqs = (evs: Ev[]) => evs.filter((e) => e.type === 'stdout').map((e) => e.seq!);
    const out = (evs: Ev[]) =>
      evs
        .filter((e) => e.type === 'stdout')
        .map((e) => Buffer.from(e.data!, 'base64').toString())
        .join('');
    expect(seqs(second).slice(0, seqs(first).length)).toEqual(seqs(first));
    expect(seqs(second).length).toBeGreaterThan(seqs(first).length + 5);
    expect(out(second).startsWith(out(first))).toBe(true);
  } finally {
    await svc.close();
  }
}, 60_000);
