import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL 15 server for tests: Debian's binaries (scripts/debian-packages.txt:
 * postgresql), a fresh data directory under the temp dir, a free port on 127.0.0.1, trust
 * authentication there only. No mock: the store tests and the route tests on PostgreSQL
 * run against it. Under root (CI containers) the server runs as the `postgres` user, since
 * initdb refuses root.
 */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PgServer {
  /** postgres://...@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dataDir: string;
  stop(): void;
}

const asRoot = () => process.getuid?.() === 0;
function run(bin: string, args: string[], opts: { cwd?: string } = {}): string {
  const [cmd, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', path.join(PG_BIN, bin), ...args]] : [path.join(PG_BIN, bin), args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: opts.cwd ?? os.tmpdir() });
}

function postgresAvailable(): boolean {
  return fs.existsSync(path.join(PG_BIN, 'pg_ctl'));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** initdb + pg_ctl start; synchronous_commit and fsync stay at their defaults (on). */
export async function startPostgres(): Promise<PgServer> {
  if (!postgresAvailable()) throw new Error(`PostgreSQL 15 is not installed (${PG_BIN}): apt-get install postgresql (scripts/debian-packages.txt)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-pg-'));
  if (asRoot()) execFileSync('chown', ['postgres:postgres', dataDir]);
  run('initdb', ['-D', dataDir, '-U', 'box', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  const conf = [`port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dataDir}'`, 'max_connections = 200', 'shared_buffers = 32MB'];
  fs.appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n${conf.join('\n')}\n`);
  run('pg_ctl', ['-D', dataDir, '-l', path.join(dataDir, 'server.log'), '-w', '-t', '60', 'start']);
  const url = `postgres://box@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    dataDir,
    stop() {
      spawnSync(
        asRoot() ? 'runuser' : path.join(PG_BIN, 'pg_ctl'),
        [...(asRoot() ? ['-u', 'postgres', '--', path.join(PG_BIN, 'pg_ctl')] : []), '-D', dataDir, '-m', 'immediate', '-w', 'stop'],
        {
          stdio: 'ignore',
        },
      );
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server's URL with another database name. */
const databaseUrl = (serverUrl: string, db: string) => serverUrl.replace(/\/[^/]*$/, `/${db}`);

/** Creates an empty database (dropping one of the same name) and answers its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  return databaseUrl(serverUrl, name);
}
