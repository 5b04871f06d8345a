/** Characters of console text the view keeps (older output is dropped from the top). */
const KEEP_CHARS = 512 * 1024;

// Colour, cursor and title escapes of a serial console, and carriage returns (CRLF, redraws).
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\r/g;

/** Console output as plain text: escapes and carriage returns removed. */
export const plainConsole = (s: string) => s.replace(ESCAPES, '');

/** `cur` + `piece` as plain text, keeping only the last KEEP_CHARS characters. */
export function appendKept(cur: string, piece: string, keep = KEEP_CHARS): string {
  const next = cur + plainConsole(piece);
  return next.length > keep ? next.slice(next.length - keep) : next;
}
