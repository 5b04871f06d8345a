import { call } from './client.js';
import { decodeBase64, runExec } from './exec-stream.js';

const text = (b64: string) => new TextDecoder().decode(decodeBase64(b64));

/** Runs one argv exec in the box and answers its stdout (no shell: used only to ask where home is). */
async function execArgv(boxId: string, argv: string[]): Promise<string> {
  let out = '';
  let err = '';
  let code: number | null = null;
  let failure = '';
  await runExec(boxId, { command: argv, timeout: 60 }, (e) => {
    if (e.type === 'stdout') out += text(e.data);
    else if (e.type === 'stderr') err += text(e.data);
    else if (e.type === 'exit') code = e.return_code;
    else if (e.type === 'error') failure = e.message;
  });
  if (failure || code !== 0) throw new Error(failure || err.trim() || `${argv[0]} exited with ${code}`);
  return out;
}

/** New folder, delete and rename in a box, through the files API (issue 29: they were in-box commands sent from here). */
export const boxFileOps = (boxId: string) => {
  const params = { box_id: boxId };
  return {
    mkdir: (path: string) => call('POST /v1/boxes/:box_id/directories', { params, body: { path } }),
    remove: (path: string, recursive: boolean) =>
      call('DELETE /v1/boxes/:box_id/paths', { params, query: { path, ...(recursive ? { recursive: 'true' as const } : {}) } }),
    rename: (from: string, to: string) => call('POST /v1/boxes/:box_id/paths/move', { params, body: { from, to } }),
  };
};

/** The home of the user execs run as (`$HOME`), or "/" when the box does not say. */
export async function boxHome(boxId: string): Promise<string> {
  const home = (await execArgv(boxId, ['sh', '-c', 'printf %s "$HOME"']).catch(() => '')).trim();
  return home.startsWith('/') ? home : '/';
}
