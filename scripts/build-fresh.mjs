// Whether the electron-vite build in out/ is older than the sources it was built from, so
// that `npm start` after a `git pull` (or an edit) runs the code that is checked out, not
// the UI or desktop shell of an earlier build. Compares modification times: a checkout
// touches the files it changes, and the build writes its outputs after reading them.
import fs from 'node:fs';
import path from 'node:path';

/** Sources of each build output; `renderer` also imports the API contract (@box/contract). */
const INPUTS = {
  renderer: ['src-renderer', 'packages/contract/src'],
  desktop: ['src-renderer', 'src-server', 'src-main'],
};
const CONFIG = ['package.json', 'package-lock.json', 'electron.vite.config.ts', 'tsconfig.json'];
const OUTPUT = { renderer: 'out/renderer/index.html', desktop: 'out/main/index.js' };

function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let t = 0;
  for (const e of fs.readdirSync(p)) t = Math.max(t, newest(path.join(p, e)));
  return t;
}

/** 'missing', 'stale' (a source is newer than the output), or null when the build is current. */
export function buildState(root, which) {
  const out = path.join(root, OUTPUT[which]);
  if (!fs.existsSync(out)) return 'missing';
  const built = fs.statSync(out).mtimeMs;
  const source = Math.max(...[...INPUTS[which], ...CONFIG].map((p) => newest(path.join(root, p))));
  return source > built ? 'stale' : null;
}
