import { describe, expect, it } from 'vitest';
import { ndjsonLines } from './ndjson.js';

const answer = (chunks: Uint8Array[], onCancel?: () => void) =>
  new Response(
    new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else if (!onCancel) c.close();
      },
      cancel: onCancel,
    }),
  );
const enc = (s: string) => new TextEncoder().encode(s);

describe('ndjsonLines (the one NDJSON reader of the renderer, the CLI and the MCP tools)', () => {
  it('yields whole lines across chunks: CRLF and blank lines dropped, a split character kept, the last line without its newline', async () => {
    const bytes = enc('{"a":"é"}\r\n\n{"b":');
    const chunks = [bytes.subarray(0, 8), bytes.subarray(8), enc('2}\n{"c":3}')];
    const lines: string[] = [];
    for await (const l of ndjsonLines(answer(chunks))) lines.push(l);
    expect(lines).toEqual(['{"a":"é"}', '{"b":2}', '{"c":3}']);
  });

  it('leaving the loop early cancels the body', async () => {
    let cancelled = false;
    for await (const l of ndjsonLines(answer([enc('{"a":1}\n')], () => (cancelled = true)))) {
      expect(l).toBe('{"a":1}');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
