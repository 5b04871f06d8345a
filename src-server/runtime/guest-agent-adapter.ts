import type { GuestAgent } from '../boxes/runtime-port.js';
import type { AgentClient, FileEntry } from '../guest/agent-client.js';

const entry = (e: FileEntry) => ({ name: e.name, type: e.type, size: e.size, modified_time: e.mtime, mode: e.mode });

/** The box domain's view of a guest agent connection. */
export function guestAgentAdapter(client: AgentClient): GuestAgent {
  return {
    exec(o) {
      const ex = client.exec({ argv: o.argv, env: o.env, cwd: o.cwd, user: o.user, tty: o.tty, stdin: o.stdin, timeoutMs: o.timeoutMs });
      return {
        stdout: ex.stdout,
        stderr: ex.stderr,
        writeStdin: (b) => ex.writeStdin(b),
        closeStdin: () => void ex.closeStdin().catch(() => {}),
        signal: (s) => ex.signal(s),
        resize: (c, r) => ex.resize(c, r),
        exit: ex.exit,
      };
    },
    writeFile: (p, o, src) => client.writeFile(p, { mode: o.mode, createParents: o.createParents }, src),
    readFile: (p) => client.readFile(p),
    stat: async (p, o) => entry(await client.stat(p, { follow: o.follow })),
    listDir: async (p) => (await client.listDir(p)).map(entry),
  };
}
