/** Test support: runs the real CLI as a subprocess against a test service. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// bin/box.mjs, as `npx box` runs it: one Node process with tsx as its loader
const BIN = path.join(ROOT, 'bin', 'box.mjs');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

interface CliEnv {
  BOX_URL?: string;
  BOX_API_KEY?: string;
  [k: string]: string | undefined;
}

/** `box <args>` (bin/box.mjs) with only the given BOX_* variables (no key file lookup from $HOME). */
export function runCli(env: CliEnv, args: string[], o: { input?: string | Buffer; timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BOX_')));
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: o.cwd ?? ROOT,
      env: { ...clean, BOX_DATA_DIR: '/nonexistent-box-data-dir', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code: code ?? (sig ? 128 : 1), stdout: stdoutBytes.toString(), stderr: Buffer.concat(err).toString(), stdoutBytes });
    });
    child.stdin.on('error', () => {});
    if (o.input !== undefined) child.stdin.end(o.input);
    else child.stdin.end();
  });
}
