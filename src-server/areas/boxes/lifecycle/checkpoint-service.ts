import type { Checkpoint } from '@box/contract/boxes';
import { newBox, type NewBox } from './new-box.js';
import { newId } from '@box/contract/common';
import type { Principal } from '../../../kernel/principal.js';
import { conflict, Failed, notFound } from '../../../kernel/domain-errors.js';
import { assertNameFree, freshLife, insertNewBox } from '../box-create.js';
import type { BoxRecord } from '../boxes-repo.js';
import { CheckpointRestore, standsOn } from './checkpoint-restore.js';
import type { LifecycleCore } from './core.js';

type CheckpointRow = Checkpoint & { org_id: string };
const publicCp = ({ org_id: _o, ...cp }: CheckpointRow): Checkpoint => cp;

/** Checkpoints (memory + devices + disk), boxes made from them, and forks. */
export class CheckpointService {
  /** Restore in place: a box back to one of its own checkpoints (checkpoint-restore.ts). */
  readonly restorer: CheckpointRestore;

  constructor(private boxes: LifecycleCore) {
    this.restorer = new CheckpointRestore(boxes, this);
  }

  /** Takes a checkpoint; a running box is stopped only for the copy, a saved one is not woken. */
  checkpoint(box: BoxRecord, opts: { name?: string; ttl_seconds?: number }): Promise<Checkpoint> {
    return this.boxes.withLock(box.box_id, async () => await this.take(box, opts));
  }

  /** Checkpoints whose time to live ended before `now` (the scheduler deletes them). */
  async expired(now: number): Promise<CheckpointRow[]> {
    const repo = this.boxes.repo;
    const out: CheckpointRow[] = [];
    for (const id of await repo.expiredCheckpoints(new Date(now).toISOString())) {
      const cp = await repo.getCheckpoint(id);
      if (cp) out.push(cp);
    }
    return out;
  }

  /** onSaved: the checkpoint is ready (boxes may start from it) while a running source is still resuming. */
  private async take(box: BoxRecord, opts: { name?: string; ttl_seconds?: number }, onSaved?: (cp: CheckpointRow) => void): Promise<Checkpoint> {
    const cur = await this.boxes.fresh(box, 'checkpoint');
    const now = Date.now();
    const generation = cur.checkpoint_generation + 1;
    const cp: CheckpointRow = {
      checkpoint_id: newId('checkpoint'),
      org_id: cur.org_id,
      box_id: cur.box_id,
      app_id: cur.app_id,
      name: opts.name ?? null,
      checkpoint_generation: generation,
      status: 'creating',
      size_bytes: 0,
      created_at: new Date(now).toISOString(),
      expires_at: opts.ttl_seconds ? new Date(now + opts.ttl_seconds * 1000).toISOString() : null,
    };
    const repo = this.boxes.repo;
    await repo.insertCheckpoint(cp);
    try {
      // The runtime calls back without waiting: the final write below waits for this one, or
      // on PostgreSQL (a pool of connections) its size 0 could land after the real size.
      let saved: Promise<void> | undefined;
      const { sizeBytes } = await this.boxes.runtime.checkpoint(cur.box_id, cp.checkpoint_id, cur.status === 'running', () => {
        saved = (async () => {
          await repo.finishCheckpoint(cp.checkpoint_id, 'ready', 0);
          onSaved?.((await repo.getCheckpoint(cp.checkpoint_id))!);
        })();
      });
      await saved;
      await repo.finishCheckpoint(cp.checkpoint_id, 'ready', sizeBytes);
      await repo.update(cur.box_id, { checkpoint_generation: generation, last_checkpointed_at: cp.created_at, on_checkpoint_id: cp.checkpoint_id });
    } catch (e) {
      await repo.finishCheckpoint(cp.checkpoint_id, 'failed', 0);
      throw new Failed(`Checkpoint of ${cur.box_id} failed: ${(e as Error).message}`);
    }
    return publicCp((await repo.getCheckpoint(cp.checkpoint_id))!);
  }

  async get(orgId: string, id: string): Promise<CheckpointRow> {
    const cp = await this.boxes.repo.getCheckpoint(id);
    if (!cp || cp.org_id !== orgId) throw notFound(`No checkpoint ${id}.`, null, 'checkpoint_id');
    return cp;
  }

  /** The box a checkpoint was taken from while it exists: its access rules cover the checkpoint. */
  async sourceBox(cp: CheckpointRow): Promise<BoxRecord | undefined> {
    return await this.boxes.repo.get(cp.box_id);
  }

  /** Which box and checkpoint each box of the organization was made from. */
  async lineage(orgId: string) {
    return await this.boxes.repo.lineage(orgId);
  }

  async list(orgId: string, q: { box_id?: string; app_id?: string; name?: string }): Promise<Checkpoint[]> {
    return (await this.boxes.repo.listCheckpoints(orgId, q)).map(publicCp);
  }

  async delete(cp: CheckpointRow): Promise<Checkpoint> {
    await this.boxes.runtime.deleteCheckpoint(cp.checkpoint_id);
    await this.boxes.repo.deleteCheckpoint(cp.checkpoint_id);
    return publicCp(cp);
  }

  /** A new running box with the checkpoint's memory and disk; same machine shape as its source. */
  async fromCheckpoint(auth: Principal, cp: CheckpointRow, name: string, parent: string | null = null): Promise<NewBox> {
    if (cp.status !== 'ready') throw conflict(`Checkpoint ${cp.checkpoint_id} is ${cp.status}, not ready.`, 'failed_precondition', 'checkpoint_id');
    const src = await this.boxes.repo.get(cp.box_id);
    if (!src) throw notFound(`The box checkpoint ${cp.checkpoint_id} was taken from no longer exists.`, null, 'checkpoint_id');
    const rec: BoxRecord = { ...src, ...freshLife(auth), name, on_checkpoint_id: cp.checkpoint_id };
    await insertNewBox(this.boxes.repo, rec);
    await this.boxes.repo.recordFork(rec.box_id, parent, cp.checkpoint_id);
    const box = await this.boxes.withLock(rec.box_id, () =>
      this.boxes.boot(
        rec,
        async () => this.boxes.runtime.cloneFromCheckpoint(cp.checkpoint_id, await this.boxes.vmConfig(rec)),
        'Restoring the checkpoint failed',
        parent ? 'fork' : 'from_checkpoint',
      ),
    );
    return newBox(await standsOn(this.boxes.repo, box));
  }

  /** A failed box cannot be checkpointed: its forks start from its last ready checkpoint (issue 28). */
  private async forkFailed(auth: Principal, box: BoxRecord, names: string[]): Promise<{ checkpoint_id: string; boxes: NewBox[] }> {
    const last = (await this.boxes.repo.listCheckpoints(auth.orgId, { box_id: box.box_id }))
      .filter((c) => c.status === 'ready')
      .sort((a, b) => b.checkpoint_generation - a.checkpoint_generation || b.created_at.localeCompare(a.created_at))[0];
    if (!last)
      throw conflict(
        `Box ${box.box_id} is failed and has no checkpoint to fork from: reboot it from its disk, or read its files first.`,
        'failed_precondition',
        'box_id',
      );
    const boxes: NewBox[] = [];
    for (const n of names) boxes.push(await this.fromCheckpoint(auth, last, n, box.box_id));
    return { checkpoint_id: last.checkpoint_id, boxes };
  }

  /** Checkpoint + from_checkpoint in one call; a paused or sleeping source stays as it is. */
  /** Each child is a `NewBox`: one that did not start is failed, the others run. */
  async fork(auth: Principal, box: BoxRecord, name: string, count: number): Promise<{ checkpoint_id: string; boxes: NewBox[] }> {
    const names = count === 1 ? [name] : Array.from({ length: count }, (_, i) => `${name}-${i + 1}`);
    for (const n of names) await assertNameFree(this.boxes.repo, auth.orgId, n);
    if ((await this.boxes.repo.get(box.box_id))?.status === 'failed') return await this.forkFailed(auth, box, names);
    // The children start as soon as the checkpoint's files are complete, while a running
    // source is still being resumed (under its lock): the two restores overlap.
    let saved!: (cp: CheckpointRow) => void;
    const savedP = new Promise<CheckpointRow>((r) => (saved = r));
    const taking = this.boxes.withLock(box.box_id, async () => await this.take(box, { name: `fork:${name}` }, saved));
    const row = await Promise.race([savedP, taking.then(async (cp) => await this.get(auth.orgId, cp.checkpoint_id))]);
    const boxes: NewBox[] = [];
    try {
      for (const n of names) boxes.push(await this.fromCheckpoint(auth, row, n, box.box_id));
    } finally {
      await taking.catch(() => {}); // the source is running again (or its failure is recorded) before the answer
    }
    return { checkpoint_id: row.checkpoint_id, boxes };
  }
}
