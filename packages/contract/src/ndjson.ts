/**
 * The lines of an `application/x-ndjson` answer (exec, code runs), as they arrive: trimmed,
 * empty ones skipped, a last line without its newline included. Shared by the clients of the
 * API (the renderer, the CLI, the MCP tools). Leaving the loop early cancels the body.
 */
export async function* ndjsonLines(res: Response): AsyncGenerator<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      buf += r.value;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) yield line;
      }
    }
    done = true;
    if (buf.trim()) yield buf.trim();
  } finally {
    if (!done) await reader.cancel().catch(() => {});
  }
}
