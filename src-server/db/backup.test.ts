import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupStore, restorePostgres } from './backup.js';
import { openDatabase } from './connection.js';
import { MIGRATIONS } from './migrations/index.js';
import { createDatabase, startPostgres, type PgServer } from '../test-support/postgres.js';

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.stop());

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'box-backup-'));
const ORGS = 300;

/** Rows written while the backup runs: the copy holds a consistent prefix of them, never a torn row. */
async function fill(db: Awaited<ReturnType<typeof openDatabase>>) {
  for (let i = 0; i < ORGS; i++) {
    await db.run("INSERT INTO orgs (id, name, credits_usd_nanos, webhook_secret, created_at) VALUES (?, ?, ?, 'w', 'now')", [`org_${i}`, `n${i}`, i]);
  }
}

describe('backup', () => {
  it('SQLite: the online backup is a database file that opens as it is, with every committed row', async () => {
    const dir = tmp();
    const db = await openDatabase(dir);
    await fill(db);
    const file = path.join(tmp(), 'box-backup.db');
    const writing = db.run("INSERT INTO orgs (id, name, credits_usd_nanos, webhook_secret, created_at) VALUES ('late', 'late', 1, 'w', 'now')");
    const r = await backupStore(db, file);
    await writing;
    expect(r).toMatchObject({ store: 'sqlite', file });
    expect(r.bytes).toBeGreaterThan(4096);
    await expect(backupStore(db, file)).rejects.toThrow(/exists already/);
    await db.close();
    const copy = new Database(file, { readonly: true });
    const n = (copy.prepare("SELECT COUNT(*) AS n FROM orgs WHERE id LIKE 'org_%'").get() as { n: number }).n;
    const migrations = (copy.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n;
    copy.close();
    expect(n).toBe(ORGS);
    expect(migrations).toBe(MIGRATIONS.length);
    // the copy is a store the service opens: put it in a data dir as box.db
    const restoredDir = tmp();
    fs.copyFileSync(file, path.join(restoredDir, 'box.db'));
    const reopened = await openDatabase(restoredDir);
    expect((await reopened.get<{ n: number }>("SELECT COUNT(*) AS n FROM orgs WHERE id LIKE 'org_%'"))!.n).toBe(ORGS);
    await reopened.close();
  });

  it('PostgreSQL: pg_dump of the database, restored by pg_restore into an empty one, has every committed row', async () => {
    const url = await createDatabase(server.url, 'backup_src');
    const db = await openDatabase('', url);
    await fill(db);
    const file = path.join(tmp(), 'box-backup.pgdump');
    const r = await backupStore(db, file, url);
    expect(r).toMatchObject({ store: 'postgres', file });
    await db.close();
    const target = await createDatabase(server.url, 'backup_dst');
    await restorePostgres(file, target);
    const c = new pg.Client({ connectionString: target });
    await c.connect();
    try {
      const n = await c.query("SELECT COUNT(*)::int AS n, SUM(credits_usd_nanos)::bigint AS s FROM orgs WHERE id LIKE 'org_%'");
      expect(n.rows[0]).toEqual({ n: ORGS, s: (ORGS * (ORGS - 1)) / 2 });
    } finally {
      await c.end();
    }
    // and the service's store opens the restored database (its migrations are there, locked by hash)
    const restored = await openDatabase('', target);
    expect((await restored.get<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations'))!.n).toBe(MIGRATIONS.length);
    await restored.close();
  });
});
