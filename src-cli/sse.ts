import { createParser } from 'eventsource-parser';

/**
 * Reads a `text/event-stream` body and calls `on(event, data)` with each event's parsed
 * JSON data, until the body ends or `signal` aborts (then it resolves quietly). The parsing
 * is eventsource-parser's (the WHATWG rules: CR, LF or CRLF line ends, `data:` with or
 * without a space, multi-line data, comments, an event split across chunks).
 */
export async function readEventStream(body: ReadableStream<Uint8Array>, on: (event: string, data: unknown) => void, signal?: AbortSignal): Promise<void> {
  const parser = createParser({
    onEvent(ev) {
      // [DONE] ends a Chat Completions stream
      if (ev.data && ev.data !== '[DONE]') on(ev.event ?? 'message', JSON.parse(ev.data));
    },
  });
  const dec = new TextDecoder();
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) parser.feed(dec.decode(chunk, { stream: true }));
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
