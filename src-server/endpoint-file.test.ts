import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../src-cli/test-support/cli.js';
import { spawnService, type Spawned } from './test-support/spawned-service.js';

// Two services on one machine: the default data dir's, then one on another --data-dir. The
// second must not take plain `npx box` away from the first (~/.box-desktop/endpoint.json
// stays the first's); it registers itself in ~/.box-desktop/services/, and `box status`
// names it. Once the first stops, plain `box` finds the second.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-endpoint-'));
const home = path.join(tmp, 'home');
const defaultDir = path.join(home, '.box-desktop');
const otherDir = path.join(tmp, 'other');
const key = 'bxk_endpoint_file_test_00000000000000000';
const started: Spawned[] = [];
afterAll(async () => {
  for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  await Promise.all(started.map((s) => s.exited));
  fs.rmSync(tmp, { recursive: true, force: true });
});

const start = async (dataDir: string) => {
  // BOX_CLIENT_ID (Box.com's SDKs) is no setting of this Box: the service warns and starts
  const s = await spawnService({ launcher: 'node', dataDir, key, env: { HOME: home, BOX_TEMPLATES: '0', BOX_CLIENT_ID: 'box-dot-com-app' } });
  started.push(s);
  return s;
};
const record = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as { url: string; data_dir: string; pid: number };
const box = (args: string[]) => runCli({ HOME: home, BOX_DATA_DIR: undefined, BOX_API_KEY: key }, args);

it('a second service on another data dir leaves plain `box` on the first, and `box status` names it', async () => {
  const first = await start(defaultDir);
  expect(first.output()).toMatch(/BOX_CLIENT_ID is not a setting of Box and is ignored \(the nearest is BOX_\w+;/);
  expect(record(path.join(defaultDir, 'endpoint.json'))).toMatchObject({ url: first.url, pid: first.child.pid });

  const second = await start(otherDir);
  expect(second.output()).toContain(`a plain \`npx box\` goes on talking to the service of ${defaultDir}, pid ${first.child.pid}, ${first.url}`);
  // the first's record stays; the second has its own, and one in services/
  expect(record(path.join(defaultDir, 'endpoint.json'))).toMatchObject({ url: first.url, pid: first.child.pid });
  expect(record(path.join(otherDir, 'endpoint.json'))).toMatchObject({ url: second.url, pid: second.child.pid });
  const services = fs.readdirSync(path.join(defaultDir, 'services'));
  expect(services).toHaveLength(1);
  expect(record(path.join(defaultDir, 'services', services[0]!))).toMatchObject({ url: second.url, data_dir: otherDir, pid: second.child.pid });

  const who = await box(['whoami']);
  expect(who.code, who.stderr).toBe(0);
  expect(who.stdout).toContain(first.url);
  const status = await box(['status']);
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toMatch(new RegExp(`^url:\\s+${first.url}$`, 'm'));
  expect(status.stdout).toContain(`other services on this machine`);
  expect(status.stdout).toContain(`${second.url}  data dir ${otherDir}  pid ${second.child.pid}`);
  const json = JSON.parse((await box(['status', '--json'])).stdout) as { data_dir: string; other_services: unknown };
  expect(json.data_dir).toBe(defaultDir);
  expect(json.other_services).toEqual([{ url: second.url, data_dir: otherDir, pid: second.child.pid }]);
  // and `box` pointed at the second (BOX_URL) names the first as the other one
  const fromSecond = await runCli({ HOME: home, BOX_URL: second.url, BOX_API_KEY: key }, ['status', '--json']);
  expect(JSON.parse(fromSecond.stdout).other_services).toEqual([{ url: first.url, data_dir: defaultDir, pid: first.child.pid }]);

  // stopping the first hands plain `box` to the second, which is still running
  first.child.kill('SIGTERM');
  expect((await first.exited).code, first.output()).toBe(0);
  expect(record(path.join(defaultDir, 'endpoint.json'))).toMatchObject({ url: second.url, data_dir: otherDir, pid: second.child.pid });
  const whoNow = await box(['status']);
  expect(whoNow.stdout).toMatch(new RegExp(`^url:\\s+${second.url}$`, 'm'));
  expect(whoNow.stdout).not.toContain('other services');
  // stopping the second removes all its records
  second.child.kill('SIGTERM');
  expect((await second.exited).code, second.output()).toBe(0);
  expect(fs.readdirSync(path.join(defaultDir, 'services'))).toEqual([]);
  expect(fs.existsSync(path.join(otherDir, 'endpoint.json'))).toBe(false);
  expect(fs.existsSync(path.join(defaultDir, 'endpoint.json'))).toBe(false);
}, 180_000);
