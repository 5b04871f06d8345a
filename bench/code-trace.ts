/**
 * `npm run bench:code-trace [-- --against <git rev> --cells 40]`: where a cell's, a chart's and
 * a login shell's time goes inside one box (TCG), with in-box timers (bench/code-trace/*.py):
 * the kernel round trip of this tree's pyrun.py against <rev>'s (default HEAD~1), the phases of
 * a chart's PNG, and /bin/true, bash -c, bash -l -c spawned as the box's user. Prints the load.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { benchService } from './bench-service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : def);
const against = opt('--against', 'HEAD~1');
const cells = opt('--cells', '40');
const dir = new URL('./code-trace/', import.meta.url).pathname;
const oldPyrun = execFileSync('git', ['show', `${against}:resources/guest/code/pyrun.py`]);
const charts = readFileSync(new URL('../resources/guest/code/charts.py', import.meta.url));
const files: Record<string, Buffer> = { 'old/pyrun.py': oldPyrun, 'old/charts.py': charts };
for (const f of ['kernel-ab.py', 'shells.py', 'chart-phases.py']) files[f] = readFileSync(dir + f);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const { svc, dataDir, api, post } = await benchService('bxt-');
const exec = async (id: string, command: string[], user?: string) => {
  const { stdout, exit } = readExecStream(await (await api(`/v1/boxes/${id}/exec`, { command, ...(user ? { user } : {}) })).text());
  if (exit?.status !== 'succeeded') throw new Error(`${command.join(' ')}: ${exit?.status} ${stdout}`);
  return stdout;
};
try {
  const appId = (await post('/v1/apps/find', { name: 'bench-code-trace', mint_if_missing: true })).id;
  let box: { box_id: string } | undefined;
  for (let i = 0; !box; i++) box = await post('/v1/boxes', { app_id: appId, name: `t${i}` }).catch((e: Error) => (i < 3 ? undefined : Promise.reject(e)));
  const id = box.box_id;
  await post(`/v1/boxes/${id}/code/run`, { code: '1+1' }); // the daemon and its kernel up
  for (const [name, content] of Object.entries(files))
    await exec(id, [
      'bash',
      '-c',
      `mkdir -p /tmp/trace/old /tmp/cs2h && echo ${content.toString('base64')} | base64 -d > /tmp/trace/${name} && chmod -R a+rX /tmp/trace`,
    ]);
  console.log(`pyrun.py of ${against} (/tmp/trace/old) against this tree's (/run/box-code); load ${load()}`);
  console.log(await exec(id, ['python3', '/tmp/trace/kernel-ab.py', '/tmp/trace/old,/run/box-code', cells]));
  console.log(`load ${load()}`);
  console.log(await exec(id, ['python3', '/tmp/trace/shells.py', '30'], 'user'));
  console.log(`load ${load()}`);
  console.log(await exec(id, ['env', 'MPLCONFIGDIR=/tmp/cs2h', 'python3', '/tmp/trace/chart-phases.py', '3']));
  console.log(`load ${load()}`);
} finally {
  await svc.close();
  await rm(dataDir, { recursive: true, force: true });
}
