/** The one reader of /proc/<pid>/stat (fields after the command name, see proc(5)). */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  /** R, S, D, Z... */
  state: string;
  /** Its process group. */
  pgrp: number;
  cpuSeconds: number;
  rssBytes: number;
  /** When it started, in clock ticks since boot: with the pid, names one process (pids are reused). */
  startTicks: string;
}

const CLK_TCK = 100;
const PAGE = 4096;

/** undefined when the process does not exist. */
export function readProcStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name may hold spaces and parentheses: fields start after the last ')'
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: f[0]!, pgrp: Number(f[2]), cpuSeconds: (Number(f[11]) + Number(f[12])) / CLK_TCK, rssBytes: Number(f[21]) * PAGE, startTicks: f[19]! };
}

/** The pids of the processes of group `pgid` that still run (zombies are left out: an init that reaps slowly keeps them a while). */
export function liveGroupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const st = readProcStat(Number(p));
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') pids.push(Number(p));
  }
  return pids;
}
