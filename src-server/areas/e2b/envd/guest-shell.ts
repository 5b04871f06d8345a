import type { ExecEvent } from '@box/contract/exec';
import type { BoxRecord, ExecPort } from '../ports.js';
import { rpcError } from '../wire-errors.js';

interface ShellResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a short sh script in the box as `user` (Box's exec) and collects its output. */
export async function guestShell(execs: ExecPort, box: BoxRecord, user: string | undefined, script: string, args: string[]): Promise<ShellResult> {
  const session = await execs.start(box, { command: ['/bin/sh', '-c', script, 'sh', ...args], user }).catch((e: unknown) => {
    throw rpcError(e);
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  await new Promise<void>((resolve) => {
    session.attach((e: ExecEvent) => {
      if (e.type === 'stdout') out.push(Buffer.from(e.data, 'base64'));
      else if (e.type === 'stderr') err.push(Buffer.from(e.data, 'base64'));
      else if (e.type === 'exit' || e.type === 'error') resolve();
    });
  });
  return { code: session.returnCode, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8').trim() };
}
