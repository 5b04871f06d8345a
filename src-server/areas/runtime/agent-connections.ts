/**
 * The service's connection to each running box's guest agent: connecting after a boot,
 * restore, clone or adoption (and what that means for tracked execs), health pings, and
 * telling the box domain when a VM is lost without being asked to.
 */
import type { BoxRuntime, GuestAgent } from '../boxes/ports.js';
import { RuntimeError } from '../boxes/ports.js';
import type { AgentClient } from '../../platform/guest/agent-client.js';
import { waitForAgent } from './agent-wait.js';
import type { BoxFolder } from './box-folder.js';
import { ExecTracker } from './exec-tracker.js';
import { guestAgentAdapter } from './guest-agent-adapter.js';
import { HEALTH_FAILURES, HealthWatch, lossOf, panicNote } from './qemu/vm-health.js';

type LostCb = Parameters<BoxRuntime['onUnexpectedExit']>[0];
type LostKind = 'killed' | 'panic' | 'agent_lost';
/**
 * What the new agent connection of a box finds (PROTOCOL.md, "Detached execs"):
 * boot — a fresh guest, tracked execs are gone; resume and restore (its own saved memory)
 * and adopt (a VM that outlived the service) — tracked execs are attached again; clone — a
 * copy of another box's memory, whose detached execs belong to that box and are killed.
 * After resume, restore and clone the guest clock is set; restore and clone also reseed
 * the guest RNG: resume is the box's own saved state running for the first time (its RNG
 * state is its own and was never used past the save, like a laptop waking up), restore
 * one that may have run before (vm-snapshot.ts `restoreRanBefore`).
 */
type ConnectKind = 'boot' | 'resume' | 'restore' | 'adopt' | 'clone';
const AGENT_BOOT_TIMEOUT_MS = 180_000;

export class AgentConnections {
  private agents = new Map<string, AgentClient>();
  /** Boxes being saved or stopped on purpose: a dropped connection is not a loss. */
  readonly stopping = new Set<string>();
  private health = new HealthWatch();
  readonly execs = new ExecTracker();
  private lost: LostCb[] = [];

  /** onLost: the runtime drops its QMP handle; kill: ends a VM whose agent stopped answering. */
  constructor(private hooks: { onLost(boxId: string): void; kill(boxId: string): void }) {}

  onUnexpectedExit(cb: LostCb) {
    this.lost.push(cb);
  }

  client(boxId: string): AgentClient | undefined {
    return this.agents.get(boxId);
  }

  /** identity: a clone's, applied with the clock (waitForAgent). */
  async connect(
    boxId: string,
    folder: BoxFolder,
    kind: ConnectKind,
    identity?: (client: AgentClient) => Promise<unknown>,
    timeoutMs = AGENT_BOOT_TIMEOUT_MS,
    pid?: number,
  ): Promise<AgentClient> {
    let client: AgentClient;
    try {
      client = await waitForAgent(folder, {
        timeoutMs,
        pid,
        afterRestore: kind === 'resume' || kind === 'restore' || kind === 'clone',
        reseed: kind !== 'resume',
        identity,
      });
    } catch (e) {
      throw new RuntimeError(`the guest agent did not answer: ${(e as Error).message}${panicNote(folder)}`);
    }
    if (kind === 'boot') this.execs.fail(boxId, 'the VM started afresh from its disk: the process is gone');
    else if (kind === 'clone') for (const d of client.info!.detached) client.killDetached(d.stream);
    else this.execs.attach(boxId, client);
    // a resynchronising HELLO (framing error) detaches our execs too: take them back
    client.on('hello', () => this.execs.attach(boxId, client));
    this.agents.set(boxId, client);
    void client.closed.then(() => this.onAgentGone(boxId, folder, client));
    this.health.watch(
      boxId,
      client,
      () => this.stopping.has(boxId),
      () => {
        this.emitLost(boxId, 'agent_lost', `The guest agent stopped answering (${HEALTH_FAILURES} health checks failed).`);
        this.hooks.kill(boxId);
      },
    );
    return client;
  }

  private onAgentGone(boxId: string, folder: BoxFolder, client: AgentClient) {
    if (this.agents.get(boxId) !== client) return;
    this.agents.delete(boxId);
    this.health.clear(boxId);
    if (this.stopping.has(boxId)) return;
    setTimeout(() => {
      if (this.stopping.has(boxId) || this.agents.has(boxId)) return;
      const loss = lossOf(folder);
      this.emitLost(boxId, loss.kind, loss.message);
    }, 200).unref();
  }

  private emitLost(boxId: string, kind: LostKind, message: string) {
    this.hooks.onLost(boxId);
    this.execs.fail(boxId, `the VM was lost (${kind})`);
    for (const cb of this.lost) cb(boxId, { kind, message });
  }

  agent(boxId: string): GuestAgent {
    const client = this.agents.get(boxId);
    if (!client?.connected) throw new RuntimeError(`box ${boxId} has no connected guest agent`, 'disconnected');
    return guestAgentAdapter(client, (f) => this.execs.track(boxId, f));
  }

  /** Marks the box as stopping on purpose and closes its connection. */
  quiesce(boxId: string) {
    this.stopping.add(boxId);
    this.health.clear(boxId);
    this.agents.get(boxId)?.close();
    this.agents.delete(boxId);
  }

  /** Disconnects from every VM (they keep running). */
  closeAll() {
    for (const id of [...this.agents.keys()]) this.quiesce(id);
  }
}
