/**
 * VMs kept ready per template in use: the warm pool's restored clones and the restore
 * spares' incoming QEMUs. Filled in the background one start at a time per template,
 * drained before a template is removed, ended with the service (none outlives it), and
 * what a killed service left in `root` is cleared at the next start.
 */
import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BoxFolder } from '../box-folder.js';
import type { Ready } from './templates.js';
import { killVm } from '../qemu/vm.js';

export abstract class TemplateStock<T extends { tpl: Ready }> {
  protected ready: T[] = [];
  private filling = new Map<string, Promise<void>>();
  protected closed = false;

  constructor(
    protected root: string,
    readonly size: number,
  ) {}

  /** Starts one VM for `tpl` (it cleans up after itself when it fails). */
  protected abstract startOne(tpl: Ready): Promise<T>;
  /** Ends a VM that was never handed out. */
  protected abstract end(item: T): Promise<void>;

  /** Ends the VMs a killed service left in `root` (they were never handed out). */
  protected async clearFolders(): Promise<void> {
    for (const id of existsSync(this.root) ? readdirSync(this.root) : []) {
      const folder = new BoxFolder(join(this.root, id));
      await killVm(folder).catch(() => {});
      await rm(folder.dir, { recursive: true, force: true });
    }
  }

  /** Ready VMs, per template id. */
  readyCounts(): Map<string, number> {
    const m = new Map<string, number>();
    for (const s of this.ready) m.set(s.tpl.templateId, (m.get(s.tpl.templateId) ?? 0) + 1);
    return m;
  }

  /** Resolves when the fills in flight are done (tests, benchmarks). */
  async settled(): Promise<void> {
    await Promise.all([...this.filling.values()]);
  }

  /** fill() a moment later, off the path of whatever just took one. */
  fillSoon(tpl: Ready, delayMs: number): void {
    if (this.closed || !this.size) return;
    setTimeout(() => this.fill(tpl), delayMs).unref();
  }

  /** Tops the stock up for `tpl` in the background (one start at a time per template). */
  fill(tpl: Ready): void {
    if (this.closed || !this.size || this.filling.has(tpl.templateId)) return;
    const run = (async () => {
      while (!this.closed && this.ready.filter((s) => s.tpl.templateId === tpl.templateId).length < this.size) {
        const s = await this.startOne(tpl);
        if (this.closed) await this.end(s);
        else this.ready.push(s);
      }
    })()
      .catch(() => {}) // without a stock, callers start their own VM
      .finally(() => this.filling.delete(tpl.templateId));
    this.filling.set(tpl.templateId, run);
  }

  /** Removes and returns the first ready VM that `fits`. */
  protected takeWhere(fits: (s: T) => boolean): T | undefined {
    const i = this.ready.findIndex(fits);
    return i < 0 ? undefined : this.ready.splice(i, 1)[0];
  }

  /** Ends the VMs of a template (before it is removed). */
  async drain(templateId: string): Promise<void> {
    await this.filling.get(templateId);
    const gone = this.ready.filter((s) => s.tpl.templateId === templateId);
    this.ready = this.ready.filter((s) => s.tpl.templateId !== templateId);
    await Promise.all(gone.map((s) => this.end(s)));
  }

  /** Service shutdown: none outlives it. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    await Promise.all(this.ready.splice(0).map((s) => this.end(s)));
  }
}
