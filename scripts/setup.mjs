#!/usr/bin/env node
// `npm run setup`: everything a fresh clone needs, then the app. Says what it does at each
// step. Steps: Node version, Debian packages (apt needs root: run as root, or pass --sudo,
// or run the printed command yourself), `npm ci` when node_modules is missing or older than
// package-lock.json, KVM (absent: software emulation, slower, still works), the UI build,
// then `npm start` (unless --no-start). `--check` only reports (npm start uses it).
// Plain Node (>=20.19) and no dependencies: it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildState } from './build-fresh.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = new Set(process.argv.slice(2));
const check = args.has('--check');
const say = (s) => console.log(`setup: ${s}`);
const run = (cmd, a, opts = {}) => spawnSync(cmd, a, { cwd: root, stdio: 'inherit', ...opts }).status ?? 1;

/** Problems that stop setup; notes that only inform. */
const problems = [];

// 1. Node
const [maj, min] = process.versions.node.split('.').map(Number);
if (maj < 20 || (maj === 20 && min < 19))
  problems.push(`Node.js ${process.versions.node} is too old: install Node.js 20.19 or newer (the project then runs its own Node 22 from npm).`);
else if (!check) say(`Node.js ${process.versions.node}: fine (scripts run the project's own Node 22 from node_modules).`);

// 2. Debian packages
export function missingDebianPackages() {
  if (process.platform !== 'linux' || spawnSync('sh', ['-c', 'command -v dpkg-query'], { encoding: 'utf8' }).status !== 0) return null;
  const wanted = fs
    .readFileSync(path.join(root, 'scripts/debian-packages.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return wanted.filter((p) => !/install ok installed/.test(spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' }).stdout ?? ''));
}
const missing = missingDebianPackages();
if (missing === null) {
  if (!check) say('not a Debian-like system: install QEMU, mmdebstrap and a Linux kernel image yourself (scripts/debian-packages.txt lists them).');
} else if (missing.length) {
  const cmd = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  const isRoot = process.getuid?.() === 0;
  if (check) problems.push(`missing Debian packages: ${missing.join(' ')}. Install: sudo ${cmd}`);
  else if (isRoot || args.has('--sudo')) {
    say(
      `installing ${missing.length} Debian packages (QEMU for the VMs, mmdebstrap and a kernel for the guest image, chromium for UI tests): ${missing.join(' ')}`,
    );
    const pre = isRoot ? [] : ['sudo'];
    if (
      run(pre[0] ?? 'apt-get', [...pre.slice(1), ...(isRoot ? [] : ['apt-get']), 'update', '-q']) !== 0 ||
      run(pre[0] ?? 'apt-get', [...(isRoot ? [] : ['apt-get']), ...cmd.split(' ').slice(1)], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }) !==
        0
    ) {
      problems.push(`apt-get failed; run it yourself: sudo ${cmd}`);
    }
  } else {
    problems.push(
      `missing Debian packages (apt needs root). Run this, then \`npm run setup\` again:\n    sudo ${cmd}\n  or let setup call sudo: npm run setup -- --sudo`,
    );
  }
} else if (!check) say('Debian packages: all present.');

// 3. npm dependencies: compared package by package with package-lock.json (file dates lie
// after a checkout). A node_modules that is a symlink is a shared install: never rewritten.
function outdatedPackages() {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const off = [];
  for (const [where, meta] of Object.entries(lock.packages ?? {})) {
    if (!where || meta.optional || meta.link || !meta.version) continue;
    try {
      if (JSON.parse(fs.readFileSync(path.join(root, where, 'package.json'), 'utf8')).version !== meta.version) off.push(where);
    } catch {
      off.push(where);
    }
  }
  return off;
}
const nm = path.join(root, 'node_modules');
const shared = fs.existsSync(nm) && fs.lstatSync(nm).isSymbolicLink();
const outdated = fs.existsSync(nm) ? outdatedPackages() : ['node_modules'];
if (outdated.length) {
  const what = `${outdated.length} npm packages missing or not at the locked version (e.g. ${outdated[0].replace(/^node_modules\//, '')})`;
  if (check) problems.push(`${what}: run \`npm run setup\` (or \`npm ci\`).`);
  else if (shared) problems.push(`${what}, and node_modules is a link to a shared install: not touching it; fix it where it lives.`);
  else if (problems.length === 0) {
    say(
      `installing npm dependencies (${what}; npm ci). On Node 20, npm prints EBADENGINE notes for electron, better-sqlite3, openai and vitest: they run on the project's own Node 22.`,
    );
    if (run('npm', ['ci', '--no-audit', '--no-fund']) !== 0) problems.push('npm ci failed (see above).');
  }
} else if (!check) say('npm dependencies: installed at the locked versions.');

// 4. KVM
let kvm = 'absent';
try {
  fs.accessSync('/dev/kvm', fs.constants.R_OK | fs.constants.W_OK);
  kvm = 'usable';
} catch (e) {
  if (fs.existsSync('/dev/kvm')) kvm = `present but not usable by you (${e.code}; add yourself to the kvm group)`;
}
if (!check)
  say(
    kvm === 'usable'
      ? "KVM: /dev/kvm is there (the service checks that it really works and otherwise uses QEMU's software emulation)."
      : `KVM: ${kvm}. Boxes still work under QEMU's software emulation (TCG), booting in tens of seconds instead of about one.`,
  );

if (problems.length) {
  for (const p of problems) console.error(`${check ? 'npm start' : 'setup'}: ${p}`);
  process.exit(check ? 0 : 1);
}
if (check) process.exit(0);

// 5. UI build, then the app
if (buildState(root, 'renderer')) {
  say('building the UI (electron-vite build, about 10 s)');
  if (run('npm', ['run', 'build', '--silent']) !== 0) process.exit(1);
}
say('the first box also builds the guest image (Debian, about 2-3 minutes, once; the UI and `npx box status` show progress).');
if (args.has('--no-start')) {
  say('done. Start the app with `npm start`; run the tests with `npm test`.');
  process.exit(0);
}
say('starting the app (npm start)');
process.exit(run('npm', ['start', '--silent', '--', ...[...args].filter((a) => !['--sudo', '--no-start'].includes(a))]));
