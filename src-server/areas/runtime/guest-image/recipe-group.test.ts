import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { groupAlive, killGroups } from '../test-support/process-groups.js';
import { killLeftoverRecipe, spawnRecipe } from './recipe-group.js';

// No part of a guest image build outlives the service that started it: its process group
// is killed when that process exits, or by the next build after a crash.
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-recipe-group-'));
const groups: number[] = [];
afterAll(() => {
  killGroups(groups);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const until = async (what: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return what();
};

/** A Node process (tsx as its loader, as the service runs) that starts a recipe leaving two background sleeps, then `then`s. */
function serviceWithRecipe(record: string, then: 'exit' | 'hang') {
  const code = `
    import { spawnRecipe } from ${JSON.stringify(path.join(ROOT, 'src-server/areas/runtime/guest-image/recipe-group.ts'))};
    const c = spawnRecipe('sh', ['-c', 'sleep 300 & sleep 300 & echo up; wait'], { stdio: ['ignore', 'pipe', 'ignore'] }, ${JSON.stringify(record)});
    c.stdout.once('data', () => {
      console.log(c.pid);
      ${then === 'exit' ? 'process.exit(0);' : 'setInterval(() => {}, 1000);'}
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<{ pgid: number; child: typeof child }>((resolve) =>
    child.stdout.once('data', (b: Buffer) => {
      const pgid = Number(b.toString().trim());
      groups.push(pgid);
      resolve({ pgid, child });
    }),
  );
}

it('the whole group dies with the service process when it exits', async () => {
  const record = path.join(tmp, 'exit.group');
  const { pgid, child } = await serviceWithRecipe(record, 'exit');
  await new Promise((r) => child.once('exit', r));
  expect(await until(() => !groupAlive(pgid))).toBe(true);
  expect(fs.existsSync(record)).toBe(false); // nothing for the next build to take for a leftover
});

it('a process that leaves stop signals to Node (npm run guest:build) still ends its build on Ctrl+C, and dies of the signal', async () => {
  const record = path.join(tmp, 'sigint.group');
  const { pgid, child } = await serviceWithRecipe(record, 'hang');
  const ended = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, sig) => r(sig)));
  child.kill('SIGINT'); // the terminal's Ctrl+C reaches the process; its build is in a group of its own
  expect(await ended).toBe('SIGINT');
  expect(await until(() => !groupAlive(pgid))).toBe(true);
  expect(fs.existsSync(record)).toBe(false);
});

it('after a kill -9 of the service, the next build kills what is left of the old group', async () => {
  const record = path.join(tmp, 'crash.group');
  const { pgid, child } = await serviceWithRecipe(record, 'hang');
  expect(JSON.parse(fs.readFileSync(record, 'utf8')).pgid).toBe(pgid);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await new Promise((r) => setTimeout(r, 300));
  expect(groupAlive(pgid)).toBe(true); // the orphans go on writing: the case this is for
  expect(await killLeftoverRecipe(record)).toBe(true);
  expect(groupAlive(pgid)).toBe(false);
  expect(fs.existsSync(record)).toBe(false);
  expect(await killLeftoverRecipe(record)).toBe(false); // nothing recorded any more
});

it('leaves alone a process that got the recorded pid later, and a half-written record', async () => {
  const other = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  groups.push(other.pid!);
  const record = path.join(tmp, 'reused.group');
  fs.writeFileSync(record, JSON.stringify({ pgid: other.pid, start: '1' })); // started at another time
  expect(await killLeftoverRecipe(record)).toBe(false);
  expect(groupAlive(other.pid!)).toBe(true);
  fs.writeFileSync(record, '{"pgid":');
  expect(await killLeftoverRecipe(record)).toBe(false);
  other.kill('SIGKILL');
});

it('what a recipe leaves in the background ends when the recipe does; its record goes', async () => {
  const record = path.join(tmp, 'done.group');
  const c = spawnRecipe('sh', ['-c', 'sleep 300 & echo $!'], { stdio: ['ignore', 'pipe', 'ignore'] }, record);
  // listen for the exit before reading: under load the recipe may exit before its output is read
  const exited = new Promise((r) => c.once('exit', r));
  const bg = Number((await new Promise<Buffer>((r) => c.stdout!.once('data', r))).toString().trim());
  await exited;
  expect(await until(() => !fs.existsSync(`/proc/${bg}`) || fs.readFileSync(`/proc/${bg}/stat`, 'utf8').includes(') Z '))).toBe(true);
  expect(await until(() => !fs.existsSync(record))).toBe(true);
});
