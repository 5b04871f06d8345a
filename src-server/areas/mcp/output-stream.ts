import type { ToolLog } from './logging.js';

/** How long output is gathered before it goes out as one notification (a chatty command would send thousands). */
const BATCH_MS = 50;

/**
 * A command's output streamed to the client as it comes: `notifications/message` (level
 * info, data `{ stream, text }`) in batches of at most BATCH_MS, each stream's text in
 * order; `flush()` sends what is left, before the tool's final answer.
 */
export class OutputStreamer {
  private pending: { stream: string; text: string }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: ToolLog,
    private readonly about: Record<string, unknown>,
  ) {}

  add(stream: 'stdout' | 'stderr', text: string) {
    if (!text) return;
    const last = this.pending[this.pending.length - 1];
    if (last?.stream === stream) last.text += text;
    else this.pending.push({ stream, text });
    this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const p of this.pending) this.log('info', { ...this.about, ...p });
    this.pending = [];
  }
}
