import { decodeBase64, runExec } from './exec-stream.js';

const text = (b64: string) => new TextDecoder().decode(decodeBase64(b64));

/**
 * File operations in a box the files API does not have (delete, rename, new folder, where
 * home is), as one argv exec each: no shell, and the path goes in as the working directory
 * plus a relative name, so no quoting can go wrong.
 */
async function execArgv(boxId: string, argv: string[], cwd?: string): Promise<string> {
  let out = '';
  let err = '';
  let code: number | null = null;
  let failure = '';
  await runExec(boxId, { command: argv, ...(cwd ? { cwd } : {}), timeout: 60 }, (e) => {
    if (e.type === 'stdout') out += text(e.data);
    else if (e.type === 'stderr') err += text(e.data);
    else if (e.type === 'exit') code = e.return_code;
    else if (e.type === 'error') failure = e.message;
  });
  if (failure || code !== 0) throw new Error(failure || err.trim() || `${argv[0]} exited with ${code}`);
  return out;
}

const split = (path: string) => {
  const i = path.lastIndexOf('/');
  return { dir: path.slice(0, i) || '/', name: path.slice(i + 1) };
};

export const boxFileOps = (boxId: string) => ({
  mkdir: (path: string) => {
    const { dir, name } = split(path);
    return execArgv(boxId, ['mkdir', '--', name], dir);
  },
  remove: (path: string, recursive: boolean) => {
    const { dir, name } = split(path);
    return execArgv(boxId, recursive ? ['rm', '-rf', '--', name] : ['rm', '-f', '--', name], dir);
  },
  rename: (from: string, to: string) => {
    const a = split(from);
    const b = split(to);
    if (a.dir !== b.dir) throw new Error('Rename keeps an entry in its folder.');
    return execArgv(boxId, ['mv', '-n', '--', a.name, b.name], a.dir);
  },
});

/** The home of the user execs run as (`$HOME`), or "/" when the box does not say. */
export async function boxHome(boxId: string): Promise<string> {
  const home = (await execArgv(boxId, ['sh', '-c', 'printf %s "$HOME"']).catch(() => '')).trim();
  return home.startsWith('/') ? home : '/';
}
