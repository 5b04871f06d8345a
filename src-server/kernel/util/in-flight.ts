/**
 * One run per key at a time: callers that arrive while a key's run is in flight share its
 * promise; the next caller after it settles starts a new run.
 */
export class InFlight<T> {
  private runs = new Map<string, Promise<T>>();

  run(key: string, fn: () => Promise<T>): Promise<T> {
    let p = this.runs.get(key);
    if (!p) {
      p = fn().finally(() => this.runs.delete(key));
      this.runs.set(key, p);
    }
    return p;
  }
}
