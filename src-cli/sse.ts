/**
 * Reads a `text/event-stream` body and calls `on(event, data)` with each event's parsed
 * JSON data, until the body ends or `signal` aborts (then it resolves quietly).
 */
export async function readEventStream(body: ReadableStream<Uint8Array>, on: (event: string, data: unknown) => void, signal?: AbortSignal): Promise<void> {
  const dec = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buf += dec.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const lines = block.split('\n');
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
        const data = lines
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        if (data && data !== '[DONE]') on(event, JSON.parse(data)); // [DONE] ends a Chat Completions stream
      }
    }
  } catch (e) {
    if (!signal?.aborted) throw e;
  }
}

/** An AbortController that aborts after `seconds` (for `--seconds`), or never. */
export function followFor(seconds: number | undefined): AbortController {
  const ac = new AbortController();
  if (seconds !== undefined) setTimeout(() => ac.abort(), seconds * 1000).unref();
  return ac;
}
