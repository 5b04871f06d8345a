/**
 * Execs handed to the box domain that have not ended, per box, and what happens to them
 * when the agent connection changes (PROTOCOL.md, "Detached execs"): a new connection to
 * the same guest re-binds them, a fresh or lost guest ends them with an error.
 */
import { RuntimeError } from '../boxes/ports.js';
import type { AgentClient } from '../../platform/guest/agent-client.js';
import type { ExecFacade } from './guest-agent-adapter.js';

export class ExecTracker {
  private execs = new Map<string, Set<ExecFacade>>();

  track(boxId: string, f: ExecFacade) {
    const set = this.execs.get(boxId) ?? new Set<ExecFacade>();
    this.execs.set(boxId, set);
    set.add(f);
    const untrack = () => {
      set.delete(f);
      if (!set.size && this.execs.get(boxId) === set) this.execs.delete(boxId);
    };
    f.exit.then(untrack, untrack);
  }

  /** Binds every open exec of the box to its exec on this connection, or ends it when the agent no longer knows it. */
  attach(boxId: string, client: AgentClient) {
    const listed = new Set(client.info?.detached.map((d) => d.stream));
    for (const f of this.execs.get(boxId) ?? []) {
      if (f.done || f.bound) continue;
      if (listed.has(f.stream)) f.bind(client.attach(f.stream, { tty: f.tty }));
      else f.fail(new RuntimeError('the process is gone: the guest agent does not know it any more', 'disconnected'));
    }
  }

  fail(boxId: string, why: string) {
    for (const f of this.execs.get(boxId) ?? []) f.fail(new RuntimeError(why, 'disconnected'));
  }
}
