/**
 * Serialises async operations per key (a box id): each waits for the one before it on the
 * same key, whatever that one's outcome; operations on different keys run concurrently.
 */
export class KeyedLock {
  private tails = new Map<string, Promise<unknown>>();
  private running = new Set<string>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const run = prev
      .catch(() => {})
      .then(async () => {
        this.running.add(key);
        try {
          return await fn();
        } finally {
          this.running.delete(key);
        }
      });
    this.tails.set(key, run);
    void run.finally(() => this.tails.get(key) === run && this.tails.delete(key)).catch(() => {});
    return run;
  }

  /** An operation holds the key right now. */
  held(key: string): boolean {
    return this.running.has(key);
  }
}
