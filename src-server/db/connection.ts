import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { runMigrations } from './migrate.js';

export type Db = Database.Database;

/**
 * Opens the service database. WAL with synchronous=FULL: an answered write is on disk
 * before the answer leaves, so kill -9 (or power loss) loses no acknowledged write.
 */
export function openDatabase(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'box.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  runMigrations(db);
  cacheStatements(db);
  return db;
}

const STATEMENT_CACHE_MAX = 512;

/**
 * Repositories call `db.prepare(sql)` where they use it; compiling the same SQL on every
 * request showed up first in the gateway's profile. Statements are reused per SQL text
 * (none of ours changes a statement's mode with pluck/raw/expand, which would leak).
 */
function cacheStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, ReturnType<Db['prepare']>>();
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= STATEMENT_CACHE_MAX) cache.clear();
      stmt = prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  }) as Db['prepare'];
}
