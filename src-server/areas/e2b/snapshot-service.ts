import crypto from 'node:crypto';
import { notFound } from '../../kernel/domain-errors.js';
import type { CheckpointsPort, ForkPort, Principal } from './ports.js';
import type { Sandbox, SandboxService } from './sandbox-service.js';

/** Checkpoints taken as E2B snapshots are named `e2b:<name>` (the UI shows them so). */
const PREFIX = 'e2b:';

/**
 * E2B's forks and snapshots on Box's checkpoints: a snapshot is a checkpoint of the
 * sandbox's box (its id is the snapshot id, and a template id for create); a fork is
 * Box's fork, each child a sandbox of its own.
 */
export class SnapshotService {
  constructor(
    private sandboxes: SandboxService,
    private checkpoints: CheckpointsPort & ForkPort,
  ) {}

  async fork(
    auth: Principal,
    id: string,
    count: number,
    timeout?: number,
  ): Promise<Array<{ sandbox: Sandbox } | { error: { code: number; message: string } }>> {
    const src = await this.sandboxes.get(auth.orgId, id);
    const name = `e2b-${crypto.randomBytes(4).toString('hex')}`;
    const { boxes } = await this.checkpoints.fork(auth, src.box, name, count);
    // each child is a sandbox, or E2B's per-fork error when its VM did not start
    return Promise.all(
      boxes.map(async (made) =>
        made.started
          ? {
              sandbox: await this.sandboxes.register(auth, made, {
                template: src.row.template_id,
                metadata: src.row.metadata,
                envs: src.row.envs,
                autoPause: src.row.auto_pause,
                timeout,
                publicTraffic: src.row.public_traffic,
              }),
            }
          : { error: { code: 500, message: `Sandbox ${made.box.box_id} did not start: ${made.reason}` } },
      ),
    );
  }

  async create(orgId: string, id: string, name?: string): Promise<{ snapshotID: string; names: string[] }> {
    const src = await this.sandboxes.get(orgId, id);
    const cp = await this.checkpoints.checkpoint(src.box, { name: `${PREFIX}${name ?? ''}` });
    return { snapshotID: cp.checkpoint_id, names: name ? [name] : [] };
  }

  async list(orgId: string, q: { sandboxID?: string; name?: string }): Promise<Array<{ snapshotID: string; names: string[] }>> {
    return (await this.checkpoints.list(orgId, { box_id: q.sandboxID, name: q.name === undefined ? undefined : `${PREFIX}${q.name}` }))
      .filter((cp) => cp.status === 'ready' && (cp.name ?? '').startsWith(PREFIX))
      .map((cp) => ({ snapshotID: cp.checkpoint_id, names: cp.name!.length > PREFIX.length ? [cp.name!.slice(PREFIX.length)] : [] }));
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (!id.startsWith('boxcp_')) throw notFound(`Snapshot ${id} not found`, 'not_found', 'templateID');
    await this.checkpoints.delete(await this.checkpoints.get(orgId, id));
  }
}
