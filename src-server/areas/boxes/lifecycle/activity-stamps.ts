/**
 * When a box's activity (exec, files, ingress: what auto-sleep counts) was last written, so
 * that it is written at most every `everyMs` per box. A new box's record already says "active
 * now": its first exec writes nothing.
 */
export class ActivityStamps {
  private last = new Map<string, number>();

  constructor(private readonly everyMs = 5000) {}

  /** True (and noted) when a stamp is due for the box now. */
  due(boxId: string, now = Date.now()): boolean {
    if (now - (this.last.get(boxId) ?? 0) < this.everyMs) return false;
    this.last.set(boxId, now);
    return true;
  }

  /** The box's record was just written with last_activity_at = now. */
  written(boxId: string, now = Date.now()) {
    this.last.set(boxId, now);
  }

  forget(boxId: string) {
    this.last.delete(boxId);
  }
}
