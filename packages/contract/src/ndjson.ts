/**
 * The lines of an `application/x-ndjson` answer (exec, code runs), as they arrive: trimmed,
 * empty ones skipped, a last line without its newline included. Shared by the clients of the
 * API (the renderer, the CLI, the MCP tools). Leaving the loop early cancels the body.
 */
export async function* ndjsonLines(res: Response): AsyncGenerator<string> {
  // A decoder on the reader, not a TextDecoderStream pipe: no second stream per answer (MCP's box_exec reads one per call).
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      buf += decoder.decode(r.value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) yield line;
      }
    }
    done = true;
    buf += decoder.decode();
    if (buf.trim()) yield buf.trim();
  } finally {
    if (!done) await reader.cancel().catch(() => {});
  }
}
