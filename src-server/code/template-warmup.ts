import { createHash } from 'node:crypto';
import type { TemplateWarmup } from '../boxes/ports.js';
import { DaemonLink } from './daemon-link.js';
import { GUEST_DIR, GUEST_FILES } from './guest-files.js';

// ~10 s on an idle machine under TCG; a warm-up still running after this is stuck, and the
// template (and the first box create, waiting for it) must not wait on it any longer
const WARM_TIMEOUT_MS = 240_000;

/**
 * The code interpreter, warm in every template: the daemon started and the default Python
 * context running with numpy, pandas and matplotlib imported (boxcode.py WARM_CODE), so a
 * new box (a clone) has it all in memory from its first instant. Images without Python and
 * ipykernel skip it; their boxes start the daemon on first use.
 */
export const codeWarmup: TemplateWarmup = {
  key: `code:${createHash('sha256')
    .update(GUEST_FILES.map((f) => f.content).join('\0'))
    .digest('hex')
    .slice(0, 16)}`,
  async run(guest) {
    const probe = await guest.sh(`python3 -c 'import ipykernel, jupyter_client' 2>/dev/null`, 60_000);
    if (probe.exitCode !== 0) return;
    for (const f of GUEST_FILES) await guest.writeFile(`${GUEST_DIR}/${f.name}`, f.content);
    const r = await guest
      .sh(
        `cd / && setsid -f python3 ${GUEST_DIR}/boxcode.py >>${GUEST_DIR}/daemon.log 2>&1 </dev/null && python3 ${GUEST_DIR}/boxcode.py warm`,
        WARM_TIMEOUT_MS,
      )
      .catch((e: Error) => ({ exitCode: null, stdout: '', stderr: e.message }));
    if (r.exitCode !== 0) {
      // no half-started daemon in the template: its boxes start a fresh one on first use
      await guest.sh(`pkill -KILL -f ${GUEST_DIR}/boxcode.py; rm -f ${GUEST_DIR}/daemon.started`, 30_000).catch(() => {});
      throw new Error(`code warm-up failed: ${r.stdout}${r.stderr}`);
    }
  },
  clone: (guest) => DaemonLink.touch(guest),
};
