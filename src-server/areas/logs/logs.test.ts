import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

// Issue 15: the service log (ring + file) and a box's serial console, through the API.
let svc: TestService;
let rt: FakeRuntime;
let appId: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => (rt = new FakeRuntime(d)) });
  appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'logs', mint_if_missing: true } })).json()).id;
});
afterAll(() => svc.close());

/** Opens a server-sent stream and collects `event` data until `until` holds (or 10 s). */
async function collect(pathname: string, event: string, until: (got: unknown[]) => boolean, whileOpen?: () => void) {
  const ac = new AbortController();
  const res = await svc.api(pathname, { signal: ac.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const got: unknown[] = [];
  const dec = new TextDecoder();
  let buf = '';
  const timer = setTimeout(() => ac.abort(), 10_000);
  let poked = false;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += dec.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (data && block.includes(`event: ${event}\n`)) got.push(JSON.parse(data.slice(6)));
      }
      if (!poked && whileOpen) {
        poked = true;
        whileOpen();
      }
      if (until(got)) break;
    }
  } catch (e) {
    if (!ac.signal.aborted) throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return got;
}

describe('GET /v1/service/log', () => {
  it('answers what the service logged, oldest first, filtered by level and text, and writes the file', async () => {
    svc.ctx.log.info('first-info-line');
    svc.ctx.log.warn('a warning about', { box_id: 'box_x', duration_ms: 12, note: undefined });
    svc.ctx.log.error('an error', new Error('boom-detail'));
    const all = await (await svc.api('/v1/service/log?limit=50')).json();
    const mine = all.data.filter((e: { message: string }) => /first-info-line|a warning about|an error/.test(e.message));
    expect(mine.map((e: { level: string }) => e.level)).toEqual(['info', 'warn', 'error']);
    // A trailing plain object is the line's fields, apart from its text; an Error's message is the field `error`.
    expect(mine[0].fields).toBeUndefined();
    expect(mine[1]).toMatchObject({ message: 'a warning about', fields: { box_id: 'box_x', duration_ms: 12 } });
    expect(mine[1].fields).not.toHaveProperty('note');
    expect(mine[2].message).toContain('boom-detail');
    expect(mine[2].fields).toEqual({ error: 'boom-detail' });
    expect(all.last_seq).toBe(all.data[all.data.length - 1].seq);
    expect(all.file).toBe(path.join(svc.dataDir, 'logs', 'service.log'));
    const warn = await (await svc.api('/v1/service/log?level=warn')).json();
    expect(warn.data.every((e: { level: string }) => e.level !== 'info')).toBe(true);
    expect(warn.data.some((e: { message: string }) => e.message.includes('a warning about'))).toBe(true);
    const found = await (await svc.api('/v1/service/log?search=BOOM-DETAIL')).json();
    expect(found.data).toHaveLength(1);
    // The search reads the fields' values too.
    const byField = await (await svc.api('/v1/service/log?search=box_x')).json();
    expect(byField.data.map((e: { message: string }) => e.message)).toEqual(['a warning about']);
    const after = await (await svc.api(`/v1/service/log?after=${mine[1].seq}`)).json();
    expect(after.data[0].seq).toBe(mine[2].seq);
    // The file: one JSON object a line, the fields beside at, level and msg.
    const lines = fs
      .readFileSync(all.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.msg === 'a warning about')).toEqual({ at: mine[1].at, level: 'warn', msg: 'a warning about', box_id: 'box_x', duration_ms: 12 });
    expect(lines.find((l) => l.msg === mine[2].message)).toMatchObject({ level: 'error', error: 'boom-detail' });
    expect(lines.find((l) => String(l.msg).startsWith('service starting on'))).toMatchObject({ level: 'info', phase: 'start', pid: process.pid });
  });

  it('refuses a bad level or limit by name, and a user-scoped key', async () => {
    expect(await errorOf(await svc.api('/v1/service/log?level=debug'))).toMatchObject({ type: 'invalid_request_error', param: 'level' });
    expect(await errorOf(await svc.api('/v1/service/log?limit=0'))).toMatchObject({ param: 'limit' });
    const user = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'u', scope: 'user' } })).json();
    const res = await svc.api('/v1/service/log', { headers: { authorization: `Bearer ${user.secret}` } });
    expect(res.status).toBe(403);
    expect((await svc.api('/v1/service/log', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it('?stream=1 sends the backlog, then new entries at the level asked', async () => {
    svc.ctx.log.warn('backlog-warning');
    const got = (await collect(
      '/v1/service/log?stream=1&level=warn&limit=5',
      'entry',
      (g) => g.some((e) => (e as { message: string }).message === 'live-error'),
      () => {
        svc.ctx.log.info('live-info-not-shown');
        svc.ctx.log.error('live-error');
      },
    )) as { message: string }[];
    const messages = got.map((e) => e.message);
    expect(messages).toContain('backlog-warning');
    expect(messages).toContain('live-error');
    expect(messages).not.toContain('live-info-not-shown');
  });
});

describe('GET /v1/boxes/{id}/console', () => {
  let boxId: string;
  beforeAll(async () => {
    const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'talker' } })).json();
    boxId = box.box_id;
  });

  it('answers the tail of the serial console, by bytes and by lines', async () => {
    rt.writeConsole(boxId, 'line one\nline two\nlast line\n');
    const all = await (await svc.api(`/v1/boxes/${boxId}/console`)).json();
    expect(all).toMatchObject({ box_id: boxId, offset: 0, truncated: false });
    expect(all.data).toContain('[fake] talker booted');
    expect(all.data.endsWith('line two\nlast line\n')).toBe(true);
    expect(all.size_bytes).toBe(Buffer.byteLength(all.data));
    const two = await (await svc.api(`/v1/boxes/${boxId}/console?lines=2`)).json();
    expect(two).toMatchObject({ data: 'line two\nlast line\n', truncated: true, offset: all.size_bytes - Buffer.byteLength('line two\nlast line\n') });
    const tail = await (await svc.api(`/v1/boxes/${boxId}/console?bytes=10`)).json();
    expect(tail).toMatchObject({ data: 'last line\n', truncated: true });
  });

  it('starts a byte window on a character boundary', async () => {
    rt.writeConsole(boxId, 'é€\n');
    const t = await (await svc.api(`/v1/boxes/${boxId}/console?bytes=5`)).json();
    expect(t.data).toBe('€\n'); // the cut "é" byte is skipped, not shown as a replacement character
  });

  it('caps reads at 1 MiB and refuses unknown boxes', async () => {
    expect(await errorOf(await svc.api(`/v1/boxes/${boxId}/console?bytes=2000000`))).toMatchObject({ param: 'bytes' });
    expect(await errorOf(await svc.api('/v1/boxes/box_00000000-0000-0000-0000-000000000000/console'))).toMatchObject({ param: 'box_id' });
    expect(await errorOf(await svc.api('/v1/boxes/not-a-box/console'))).toMatchObject({ param: 'box_id' });
    // There is no parameter that names a file: an unknown one is ignored, the box's own log is read.
    const t = await (await svc.api(`/v1/boxes/${boxId}/console?path=/etc/passwd&lines=1`)).json();
    expect(t.data).not.toContain('root:');
  });

  it('?stream=1 sends the tail, then what the VM writes next', async () => {
    const got = (await collect(
      `/v1/boxes/${boxId}/console?stream=1&lines=1`,
      'chunk',
      (g) =>
        g
          .map((c) => (c as { data: string }).data)
          .join('')
          .includes('login: '),
      () => {
        setTimeout(() => rt.writeConsole(boxId, 'talker login: '), 100);
      },
    )) as { data: string; offset: number }[];
    expect(got[0]!.data).toBe('é€\n');
    expect(
      got
        .slice(1)
        .map((c) => c.data)
        .join(''),
    ).toBe('talker login: ');
  });

  it('a terminated box has an empty console', async () => {
    await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST', json: {} });
    const t = await (await svc.api(`/v1/boxes/${boxId}/console`)).json();
    expect(t).toMatchObject({ data: '', size_bytes: 0, truncated: false });
  });
});
