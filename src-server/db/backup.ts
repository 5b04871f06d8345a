import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PgStore } from './pg-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

const run = promisify(execFile);

/** Where Debian puts PostgreSQL 15's client programs when they are not on PATH. */
const PG_BIN = '/usr/lib/postgresql/15/bin';
const pgTool = (name: string) => (fs.existsSync(path.join(PG_BIN, name)) ? path.join(PG_BIN, name) : name);

interface BackupResult {
  store: 'sqlite' | 'postgres';
  file: string;
  bytes: number;
  ms: number;
}

/**
 * A consistent copy of the whole store, taken while the service runs:
 * - SQLite: the online backup API (better-sqlite3's `backup`), page by page, into a
 *   database file that opens as it is (`<data dir>/box.db` can be replaced by it);
 * - PostgreSQL: `pg_dump --format=custom` (one snapshot), restored with `pg_restore -d`.
 */
export async function backupStore(store: Store, file: string, databaseUrl?: string): Promise<BackupResult> {
  const t0 = performance.now();
  const dest = path.resolve(file);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  if (fs.existsSync(dest)) throw new Error(`${dest} exists already: back up to a new file.`);
  const tmp = `${dest}.partial`;
  fs.rmSync(tmp, { force: true });
  if (store instanceof SqliteStore) {
    await store.db.backup(tmp);
  } else if (store instanceof PgStore) {
    if (!databaseUrl) throw new Error('backing up PostgreSQL needs its URL (BOX_DATABASE_URL)');
    await run(pgTool('pg_dump'), ['--format=custom', '--no-owner', `--file=${tmp}`, `--dbname=${databaseUrl}`]);
  } else {
    throw new Error('unknown store');
  }
  fs.renameSync(tmp, dest);
  return { store: store.dialect, file: dest, bytes: fs.statSync(dest).size, ms: Math.round(performance.now() - t0) };
}

/** Loads a pg_dump backup into an empty PostgreSQL database (the other direction of backupStore). */
export async function restorePostgres(file: string, databaseUrl: string): Promise<void> {
  await run(pgTool('pg_restore'), ['--no-owner', '--exit-on-error', `--dbname=${databaseUrl}`, path.resolve(file)]);
}
