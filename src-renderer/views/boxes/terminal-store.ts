/**
 * What this browser keeps of a box's shell across page loads: the exec's idempotency key
 * (the same request again re-attaches to the running shell) and its scrollback, bounded,
 * so that a shell whose box is gone still shows what happened in it.
 */
export interface StoredShell {
  key: string;
  execId: string | null;
  ended: boolean;
  endReason?: string;
}

const KEEP_CHARS = 256 * 1024;
const shellKey = (boxId: string) => `box-shell:${boxId}`;
const logKey = (boxId: string) => `box-shell-log:${boxId}`;

export function storedShell(boxId: string): StoredShell | null {
  try {
    const v = JSON.parse(localStorage.getItem(shellKey(boxId)) ?? 'null') as StoredShell | null;
    return v && typeof v.key === 'string' ? v : null;
  } catch {
    return null;
  }
}

export const rememberShell = (boxId: string, s: StoredShell) => localStorage.setItem(shellKey(boxId), JSON.stringify(s));

export function forgetShell(boxId: string) {
  localStorage.removeItem(shellKey(boxId));
  localStorage.removeItem(logKey(boxId));
}

export const loadScrollback = (boxId: string) => localStorage.getItem(logKey(boxId));

/** The shell's output as text (UTF-8 decoded across chunks), the newest 256 KiB, saved a moment after it arrives. */
export class ScrollbackLog {
  private text = '';
  private dec = new TextDecoder();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private boxId: string) {}

  add(data: string | Uint8Array) {
    this.text += typeof data === 'string' ? data : this.dec.decode(data, { stream: true });
    if (this.text.length > KEEP_CHARS * 1.25) this.text = this.text.slice(-KEEP_CHARS);
    this.timer ??= setTimeout(() => this.flush(), 300);
  }

  flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      localStorage.setItem(logKey(this.boxId), this.text.slice(-KEEP_CHARS));
    } catch {
      // storage full: the live terminal still has it all
    }
  }
}
