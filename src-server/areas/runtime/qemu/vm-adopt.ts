/**
 * Adoption from reality (issue 28): a VM that outlived the service is taken over only when
 * it really runs and its guest agent answers. Its QEMU is asked its run state (QMP
 * `query-status`) first: a VM stopped on purpose by a save, a checkpoint or a pause that the
 * service died in the middle of (`paused`, `postmigrate`, `finish-migrate`) still holds all
 * of its memory and devices, so it is continued (its disks re-activated by `cont`) and its
 * clock set like after a restore; any other state (`inmigrate`: a restore that never got its
 * data, `internal-error`, `guest-panicked`, `shutdown`...), a QEMU stopped by a signal or
 * one whose monitor or agent does not answer is killed, and the box restarts from its disk.
 * A box never shows `running` without an agent that answered.
 */
import type { AgentClient } from '../../../platform/guest/agent-client.js';
import { type BoxFolder, livePid } from '../box-folder.js';
import { readProcStat } from '../../../kernel/util/proc-stat.js';
import { attachVm, killVm, type VmHandle } from './vm.js';

/** Run states whose VM still holds everything and only needs `cont`. */
const CONTINUABLE = new Set(['paused', 'postmigrate', 'finish-migrate']);
const QMP_TIMEOUT_MS = 5000;

type AdoptResult = { adopted: true; handle: VmHandle; note: string } | { adopted: false; note: string };

/** How long an adopted VM's agent has to answer before the box restarts from its disk instead. */
export const ADOPT_AGENT_TIMEOUT_MS = 20_000;

/**
 * `connect` attaches the agent (`resumed`: the VM was continued, so its clock is behind and
 * tracked execs are attached like after a restore) within `agentTimeoutMs`.
 */
export async function adoptVm(
  folder: BoxFolder,
  connect: (resumed: boolean, timeoutMs: number) => Promise<AgentClient>,
  agentTimeoutMs: number,
): Promise<AdoptResult> {
  const pid = livePid(folder);
  if (!pid) return { adopted: false, note: 'no VM process was running' };
  const state = readProcStat(pid)?.state;
  if (state === 'T' || state === 't') return giveUp(undefined, `its QEMU (pid ${pid}) was stopped by a signal`);
  let handle: VmHandle | undefined;
  let resumed = false;
  try {
    handle = await attachVm(folder);
    const { status } = await handle.qmp.execute<{ status: string }>('query-status', undefined, QMP_TIMEOUT_MS);
    if (CONTINUABLE.has(status)) {
      await handle.qmp.execute('cont', undefined, QMP_TIMEOUT_MS);
      const after = (await handle.qmp.execute<{ status: string }>('query-status', undefined, QMP_TIMEOUT_MS)).status;
      if (after !== 'running') return giveUp(handle, `its VM was ${status} and did not continue (${after})`);
      resumed = true;
    } else if (status !== 'running') return giveUp(handle, `its VM was ${status}`);
    const agent = await connect(resumed, agentTimeoutMs);
    await agent.ping();
    return { adopted: true, handle, note: resumed ? `its VM was ${status}: continued, agent answered` : 'running, agent answered' };
  } catch (e) {
    return giveUp(handle, `${handle ? 'its guest agent' : 'its QEMU monitor'} did not answer (${(e as Error).message})`);
  }
}

/** Not adopted: the caller drops its agent connection, then ends the VM (endVm). */
function giveUp(handle: VmHandle | undefined, why: string): AdoptResult {
  handle?.qmp.close();
  return { adopted: false, note: why };
}

/** Ends a VM that was not adopted: the box restarts from its disk. */
export async function endVm(folder: BoxFolder): Promise<void> {
  if (livePid(folder)) await killVm(folder).catch(() => {});
}
