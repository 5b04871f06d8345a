import { describe, expect, it } from 'vitest';
import { readEventStream } from './sse.js';

/** A body that arrives in exactly these pieces. */
const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
      c.close();
    },
  });

const read = async (...chunks: string[]) => {
  const got: [string, unknown][] = [];
  await readEventStream(body(...chunks), (event, data) => got.push([event, data]));
  return got;
};

describe('readEventStream', () => {
  it('reads events whatever way a server writes them', async () => {
    expect(
      await read(
        // CRLF line ends
        'event: status\r\ndata: {"a":1}\r\n\r\n',
        // data: without a space; a comment line
        ': keep-alive\n\ndata:{"b":2}\n\n',
        // multi-line data is one event, its lines joined by \n
        'event: multi\ndata: {"c":\ndata: 3}\n\n',
        // an event split across chunks, even inside the field name and the blank line
        'eve',
        'nt: split\nda',
        'ta: {"d":',
        '4}\n',
        '\n',
        // CR alone ends a line too
        'data: {"e":5}\r\r',
        'data: [DONE]\n\n',
      ),
    ).toEqual([
      ['status', { a: 1 }],
      ['message', { b: 2 }],
      ['multi', { c: 3 }],
      ['split', { d: 4 }],
      ['message', { e: 5 }],
    ]);
  });

  it('keeps a split multi-byte character whole', async () => {
    const bytes = new TextEncoder().encode('data: {"s":"é"}\n\n');
    const split = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.subarray(0, 13));
        c.enqueue(bytes.subarray(13));
        c.close();
      },
    });
    const got: unknown[] = [];
    await readEventStream(split, (_e, d) => got.push(d));
    expect(got).toEqual([{ s: 'é' }]);
  });

  it('resolves quietly when its signal aborted the body', async () => {
    const ac = new AbortController();
    const endless = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('data: {"n":1}\n\n'));
        ac.signal.addEventListener('abort', () => c.error(new Error('aborted')));
      },
    });
    const got: unknown[] = [];
    const done = readEventStream(endless, (_e, d) => got.push(d), ac.signal);
    await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await expect(done).resolves.toBeUndefined();
    expect(got).toEqual([{ n: 1 }]);
  });
});
