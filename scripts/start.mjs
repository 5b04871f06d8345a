#!/usr/bin/env node
// `npm start`: the desktop app when Electron can run here (its binary is installed and
// there is a display), otherwise the headless service with the web UI. Extra arguments
// go to the headless service (e.g. `npm start -- --port 9000 --data-dir /tmp/box`).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildState } from './build-fresh.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** The installed Electron binary, found without `require('electron')` (which tries a download). */
function electronBinary() {
  const dir = path.join(root, 'node_modules', 'electron');
  const pathFile = path.join(dir, 'path.txt');
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (!fs.existsSync(pathFile)) return null;
  const exe = path.join(override ?? path.join(dir, 'dist'), fs.readFileSync(pathFile, 'utf8').trim());
  return fs.existsSync(exe) ? exe : null;
}

const hasDisplay = process.platform === 'darwin' || process.platform === 'win32' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
/** Builds out/ when it is missing or older than its sources (a pull or an edit since). */
const buildIfNeeded = (which) => {
  const state = process.env.BOX_START_NO_BUILD === '1' ? null : buildState(root, which);
  if (!state) return;
  if (state === 'stale') console.log('The sources changed since the last build: rebuilding (electron-vite build).');
  const r = spawnSync(bin('electron-vite'), ['build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

// A stop reaches this script from npm (package.json runs it with `exec`, so npm's own
// forwarding of a SIGTERM sent to its pid lands here), or with the whole process group
// (Ctrl+C, systemd, docker stop), in which case the service got it too. Each burst is
// forwarded once: the service takes repeats within a second as the same stop
// (src-server/areas/quit/stop-signals.ts), and a deliberate second Ctrl+C is forwarded as such.
function run(cmd, args) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit' });
  let forwardedAt = 0;
  for (const sig of ['SIGINT', 'SIGTERM'])
    process.on(sig, () => {
      if (Date.now() - forwardedAt < 1000) return;
      forwardedAt = Date.now();
      child.kill(sig);
    });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

// What is missing (Debian packages, npm packages) is said first, in words; setup fixes it.
spawnSync(process.execPath, [path.join(root, 'scripts/setup.mjs'), '--check'], { cwd: root, stdio: 'inherit' });

const electron = electronBinary();
if (electron && hasDisplay && process.env.BOX_HEADLESS !== '1') {
  buildIfNeeded('desktop');
  run(electron, [root]);
} else {
  buildIfNeeded('renderer');
  console.log(
    electron
      ? 'No display found: starting the headless service with the web UI.'
      : 'Electron binary not available: starting the headless service with the web UI.',
  );
  // Node on the entry (it registers tsx itself, after the VMs yield), not the tsx CLI: that
  // CLI relays signals once more and SIGKILLs the service 30 ms later when it does not report them back.
  run(process.execPath, [path.join(root, 'src-server/headless.ts'), '--web-ui', path.join(root, 'out/renderer'), ...process.argv.slice(2)]);
}
