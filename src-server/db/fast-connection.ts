import Database from 'better-sqlite3';
import path from 'node:path';
import type { Db } from './connection.js';

/**
 * A second connection to the service database with `synchronous = NORMAL`, for records
 * whose loss on power failure costs nothing the caller was promised: finished synchronous
 * inference requests (the caller has the answer) and exec records. In WAL mode a NORMAL commit survives a crash of the process (it is in the WAL file)
 * but skips the fsync, which would otherwise stall the event loop on every request and
 * cap the gateway at a few hundred requests a second (and cost ~13 ms per exec under load). The next FULL commit on the main
 * connection (or a checkpoint) makes it durable against power loss too.
 * Queued (background) requests and webhook schedules stay on the main FULL connection:
 * their 202 answer promises future work.
 */
export function openFastConnection(dataDir: string): Db {
  const db = new Database(path.join(dataDir, 'box.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
