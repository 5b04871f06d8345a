import type { Box, Checkpoint } from '@box/contract/boxes';
import { conflict, invalid } from '../../../kernel/domain-errors.js';
import type { BoxesRepo, BoxRecord } from '../boxes-repo.js';
import type { LifecycleCore } from './core.js';

/**
 * Restore in place (ours, beyond the spec; issue 29): the box goes back to one of its own
 * checkpoints, disk and memory, and runs from there. Whatever it holds now (files written
 * since, processes, a paused or saved state) is lost: a caller that wants to keep it takes
 * a checkpoint first (the UI offers to). Same box id, name, ports and settings; the
 * checkpoint stays and can be restored again.
 *
 * Built only from existing primitives: the box's VM and folder go (runtime.destroy; a
 * checkpoint's frozen layers stay while a checkpoint builds on them), then the box starts
 * from the checkpoint under its own id (runtime.cloneFromCheckpoint, sameBox: it keeps its
 * machine-id), recorded by boot(). The box then stands on that checkpoint (`on_checkpoint_id`,
 * which the lineage tree marks): only the service can tell, as the generation stays.
 */
export class CheckpointRestore {
  constructor(
    private boxes: LifecycleCore,
    private checkpoints: { get(orgId: string, id: string): Promise<Checkpoint> },
  ) {}

  restore(box: BoxRecord, checkpointId: string): Promise<Box> {
    return this.boxes.withLock(box.box_id, async () => {
      const cur = await this.boxes.fresh(box, 'restore');
      const cp = await this.checkpoints.get(cur.org_id, checkpointId);
      if (cp.box_id !== cur.box_id) {
        throw invalid(
          `Checkpoint ${cp.checkpoint_id} was taken from box ${cp.box_id}, not ${cur.box_id}; a box restores only its own checkpoints (start a new box from it with POST /v1/boxes/from_checkpoint).`,
          'checkpoint_id',
        );
      }
      if (cp.status !== 'ready') throw conflict(`Checkpoint ${cp.checkpoint_id} is ${cp.status}, not ready.`, 'failed_precondition', 'checkpoint_id');
      const { repo, runtime } = this.boxes;
      if (cur.status !== 'interrupted_restorable') await repo.setStatus(cur.box_id, 'interrupted_restorable', { error_message: null });
      await runtime.destroy(cur.box_id);
      await repo.update(cur.box_id, { on_checkpoint_id: cp.checkpoint_id });
      const started = await this.boxes.boot(
        cur,
        async () => runtime.cloneFromCheckpoint(cp.checkpoint_id, await this.boxes.vmConfig(cur), { sameBox: true }),
        `Restoring checkpoint ${cp.checkpoint_id} failed`,
        'restore',
      );
      return await standsOn(repo, started);
    });
  }
}

/** A box started from a checkpoint stands on it once it runs; one that did not start stands on none. */
export async function standsOn(repo: BoxesRepo, box: Box): Promise<Box> {
  if (box.status === 'running' || box.on_checkpoint_id === null) return box;
  await repo.update(box.box_id, { on_checkpoint_id: null });
  return { ...box, on_checkpoint_id: null };
}
