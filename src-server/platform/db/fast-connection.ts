import path from 'node:path';
import { openSqliteFile, type Db } from './connection.js';
import { openPostgresPool, PgStore } from './pg-store.js';
import { SqliteStore } from './sqlite-store.js';

/**
 * A second connection to the service database with `synchronous = NORMAL`, for records
 * whose loss on power failure costs nothing the caller was promised: finished synchronous
 * inference requests (the caller has the answer), the egress log and boxes' activity stamps. In WAL mode a NORMAL commit survives a crash of the process (it is in the WAL file)
 * but skips the fsync, which would otherwise stall the event loop on every request and
 * cap the gateway at a few hundred requests a second (and cost ~13 ms per exec under load). The next FULL commit on the main
 * connection (or a checkpoint) makes it durable against power loss too.
 * Queued (background) requests and webhook schedules stay on the main FULL connection:
 * their 202 answer promises future work.
 * On PostgreSQL the same records go through a second, small pool whose sessions run with
 * `synchronous_commit = off`: a commit answers once it is in the server's WAL buffers, not
 * after the WAL's fsync. A kill -9 of this service loses none of them (the server has them);
 * a crash of the PostgreSQL server or the machine may lose the last few hundred milliseconds
 * of these records only, as a power failure may under SQLite's NORMAL.
 */
export function openFastConnection(dataDir: string, main: Db): Db {
  if (main instanceof PgStore) return new PgStore(openPostgresPool(main.url, 4, 'off'));
  if (!(main instanceof SqliteStore)) return main;
  return main.sharing(openSqliteFile(path.join(dataDir, 'box.db'), 'NORMAL'));
}
