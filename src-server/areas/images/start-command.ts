/**
 * An image's CMD: started by the service after every boot of a box made from the image,
 * supervised inside the guest (restarted 1 s after it exits), its output appended to
 * CMD_LOG in the box (read it with the files API, `box cp` or `box exec`). The guest's
 * PID 1 is our agent, not an init system, so the supervisor is a small shell loop started
 * in its own session; a pid file under /run (a fresh tmpfs on every cold boot) makes the
 * start idempotent across restores, where the supervisor is still alive in memory.
 * Needs /bin/sh in the image (Debian, busybox and most OCI images have one).
 */
import type { GuestAgent } from '../boxes/ports.js';
import type { ImageRunConfig } from '@box/contract/images';

const CMD_LOG = '/var/log/box-cmd.log';
const RUN_DIR = '/run/box-cmd';

const PREPARE = `mkdir -p ${RUN_DIR} /var/log && touch ${CMD_LOG} && if [ -n "$1" ]; then chown "$1" ${RUN_DIR} ${CMD_LOG}; fi`;

const SUPERVISOR = `echo $$ > ${RUN_DIR}/pid
while :; do
  echo "[box] starting: $*" >> ${CMD_LOG}
  "$@" >> ${CMD_LOG} 2>&1 < /dev/null
  echo "[box] exited with status $?; restarting in 1 s" >> ${CMD_LOG}
  sleep 1
done`;

const LAUNCH = `if [ -f ${RUN_DIR}/pid ] && kill -0 "$(cat ${RUN_DIR}/pid)" 2>/dev/null; then exit 0; fi
if command -v setsid >/dev/null 2>&1; then S=setsid; else S=; fi
$S /bin/sh -c "$BOX_CMD_SUPERVISOR" box-cmd "$@" < /dev/null > /dev/null 2>&1 &
exit 0`;

async function run(agent: GuestAgent, opts: Parameters<GuestAgent['exec']>[0], what: string): Promise<void> {
  const ex = agent.exec({ ...opts, timeoutMs: 30_000 });
  const err: Buffer[] = [];
  ex.stdout.resume();
  ex.stderr.on('data', (b: Buffer) => err.push(b));
  const r = await ex.exit;
  if (r.exitCode !== 0) throw new Error(`${what} failed (exit ${r.exitCode ?? r.signal}): ${Buffer.concat(err).toString().trim()}`);
}

/** Starts the image's CMD under the supervisor unless it is already running. */
export async function startImageCommand(agent: GuestAgent, config: ImageRunConfig, env: Record<string, string> = {}): Promise<void> {
  if (!config.cmd?.length) return;
  await run(agent, { argv: ['/bin/sh', '-c', PREPARE, 'box-prepare', config.user ?? ''] }, 'preparing the image command log');
  await run(
    agent,
    {
      argv: ['/bin/sh', '-c', LAUNCH, 'box-cmd', ...config.cmd],
      env: { ...env, ...config.env, BOX_CMD_SUPERVISOR: SUPERVISOR },
      cwd: config.workdir ?? undefined,
      user: config.user ?? undefined,
    },
    'starting the image command',
  );
}
