/**
 * Work in a box that is not an exec (a code cell, its kernel's start): while one is held the
 * box does not auto-sleep (scheduler.ts), as with a running exec.
 */
export class BoxHolds {
  private counts = new Map<string, number>();

  /** Holds the box awake until the returned release is called (once; later calls do nothing). */
  hold(boxId: string): () => void {
    this.counts.set(boxId, (this.counts.get(boxId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.counts.get(boxId) ?? 1) - 1;
      if (n > 0) this.counts.set(boxId, n);
      else this.counts.delete(boxId);
    };
  }

  held(boxId: string): boolean {
    return this.counts.has(boxId);
  }
}
