/**
 * Waiting for the guest agent on a box's agent.sock, through the guest agent client.
 * QEMU's socket chardev serves one connection at a time: the caller owns the returned
 * client and must close it before anyone else connects.
 */
import { AgentClient } from '../../platform/guest/agent-client.js';
import { loadFactor } from '../../platform/guest/agent-connect.js';
import { PROTO_VERSION } from '../../platform/guest/protocol.js';
import { type BoxFolder, readState } from './box-folder.js';
import { mountShares } from './qemu/shares.js';
import { exited } from './qemu/vm.js';

interface WaitForAgentOptions {
  timeoutMs?: number;
  /**
   * After a restore or clone: set the guest clock (it is behind by the time it was
   * down), reseed its RNG (clones share RNG state) and mount the shared folders again
   * (they are unmounted for the save).
   */
  afterRestore?: boolean;
  /** With afterRestore: also reseed the RNG (default true); false for a box's own saved state running for the first time. */
  reseed?: boolean;
  /**
   * A clone's own identity (template-clone.ts applyIdentity), sent with the clock in one
   * batch instead of the plain reseed: its reseed covers the RNG, and a guest whose code
   * is not translated yet (TCG) serves the batch in one wake-up instead of two round trips.
   */
  identity?: (client: AgentClient) => Promise<unknown>;
  /** The VM's QEMU process, just started: the wait ends as soon as it exits (a crashed boot fails at once). */
  pid?: number;
}

export async function waitForAgent(folder: BoxFolder, opts: WaitForAgentOptions = {}): Promise<AgentClient> {
  // the deadline grows with the machine's load, like each HELLO's wait (AgentClient.connect)
  const client = await AgentClient.connect(folder.agentSock, {
    timeoutMs: (opts.timeoutMs ?? 60_000) * loadFactor(),
    helloRetryMs: 200,
    ...(opts.pid ? { gone: () => (exited(opts.pid!) ? `its VM process (pid ${opts.pid}) exited` : undefined) } : {}),
  });
  const proto = client.info?.protocol;
  if (proto !== PROTO_VERSION) {
    client.close();
    throw new Error(
      `the guest agent speaks protocol ${proto ?? 'unknown'} (version ${client.info?.version ?? '?'}), this service needs ${PROTO_VERSION}: rebuild the image (box image build) so the box gets the current agent`,
    );
  }
  if (opts.afterRestore) {
    try {
      // pipelined: one guest wake-up. A reseed runs kernel code the restored TCG guest has not
      // translated yet: 8-24 ms of a 70 ms resume, so it is skipped where it adds nothing.
      const reseed = opts.identity ? opts.identity(client) : opts.reseed !== false ? client.reseed() : undefined;
      await Promise.all([client.syncTime(), reseed]);
      const state = await readState(folder);
      if (state) await mountShares(client, state.config);
    } catch (e) {
      client.close();
      throw e;
    }
  }
  return client;
}
