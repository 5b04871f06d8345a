import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { runMigrations } from './migrate.js';
import { openPostgres } from './pg-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

export type Db = Store;

/**
 * Opens the service database: PostgreSQL when `databaseUrl` is given (BOX_DATABASE_URL),
 * else <dataDir>/box.db. Either way an answered write is durable before the answer leaves,
 * so kill -9 (or power loss) loses no acknowledged write: SQLite in WAL with
 * synchronous=FULL, PostgreSQL with synchronous_commit on (pg-store.ts).
 */
export async function openDatabase(dataDir: string, databaseUrl?: string): Promise<Store> {
  const store = databaseUrl ? await openPostgres(databaseUrl) : openSqlite(dataDir);
  try {
    await runMigrations(store);
  } catch (e) {
    await store.close();
    throw e;
  }
  return store;
}

export function openSqliteFile(file: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

function openSqlite(dataDir: string): SqliteStore {
  fs.mkdirSync(dataDir, { recursive: true });
  return new SqliteStore(openSqliteFile(path.join(dataDir, 'box.db'), 'FULL'));
}
