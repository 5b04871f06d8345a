import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, openSqliteFile } from './connection.js';
import { openFastConnection } from './fast-connection.js';
import { runMigrations } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { numberPlaceholders, openPostgres } from './pg-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';
import { createDatabase, startPostgres, type PgServer } from '../../test-support/postgres.js';

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.stop());

/** The data dir of the SQLite store under test (its fast connection opens the same file). */
let sqliteDir = '';
const stores: Array<[string, () => Promise<Store>]> = [
  ['sqlite', () => openDatabase((sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-store-'))))],
  ['postgres', async () => openDatabase('', await createDatabase(server.url, `store_${Math.random().toString(36).slice(2, 10)}`))],
];

it('numbers ? placeholders outside quoted text', () => {
  expect(numberPlaceholders('SELECT ? , \'?\' , "a?" , ?')).toBe('SELECT $1 , \'?\' , "a?" , $2');
});

describe.each(stores)('the store on %s', (dialect, open) => {
  let db: Store;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => db?.close());

  it('runs every migration, once (a second open finds them applied)', async () => {
    expect(db.dialect).toBe(dialect);
    const ids = (await db.all<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id')).map((r) => r.id);
    expect(ids).toEqual([1, 2, 3, 4, 5, 7, 11, 13, 21, 113, 129, 140, 141, 150, 270, 272, 276, 277, 278, 381, 382, 383]);
  });

  it('reads and writes with positional and named parameters; 64-bit integers and bytes come back as numbers and Buffers', async () => {
    const now = Date.now();
    await db.run("INSERT INTO orgs (id, name, credits_usd_nanos, webhook_secret, created_at) VALUES (?, ?, ?, 'w', ?)", [
      'org_1',
      'one',
      5_000_000_000_000,
      'x',
    ]);
    await db.run("INSERT INTO idempotency_keys (api_key_id, key, request_hash, state, body, created_at) VALUES (@k, @key, 'h', 'done', @body, @at)", {
      k: 'key_1',
      key: 'a',
      body: Buffer.from([0, 1, 255]),
      at: now,
    });
    const org = await db.get<{ credits_usd_nanos: number }>('SELECT credits_usd_nanos FROM orgs WHERE id = ?', ['org_1']);
    expect(org).toEqual({ credits_usd_nanos: 5_000_000_000_000 });
    const idem = await db.get<{ body: Buffer; created_at: number }>('SELECT body, created_at FROM idempotency_keys WHERE api_key_id = ?', ['key_1']);
    expect(idem!.created_at).toBe(now);
    expect([...idem!.body]).toEqual([0, 1, 255]);
    expect(await db.get('SELECT 1 AS one FROM orgs WHERE id = ?', ['nope'])).toBeUndefined();
    const n = await db.get<{ n: number }>('SELECT COUNT(*) AS n, SUM(credits_usd_nanos) AS s FROM orgs');
    expect(n).toEqual({ n: 1, s: 5_000_000_000_000 });
    expect((await db.run('UPDATE orgs SET name = ? WHERE id = ?', ['uno', 'org_1'])).changes).toBe(1);
    // an identity key (AUTOINCREMENT on SQLite)
    await db.run("INSERT INTO audit_log (org_id, at, action) VALUES ('org_1', 'x', 'a')");
    await db.run("INSERT INTO audit_log (org_id, at, action) VALUES ('org_1', 'x', 'b')");
    expect((await db.all<{ id: number }>('SELECT id FROM audit_log ORDER BY id')).map((r) => r.id)).toEqual([1, 2]);
  });

  it('a transaction commits as one, or rolls back entirely when its body throws; repositories inside it join it', async () => {
    await expect(
      db.transaction(async () => {
        await db.run("INSERT INTO apps (id, org_id, name, created_at) VALUES ('app_a', 'org_1', 'a', 'x')");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await db.get("SELECT id FROM apps WHERE id = 'app_a'")).toBeUndefined();
    const out = await db.transaction(async () => {
      await db.run("INSERT INTO apps (id, org_id, name, created_at) VALUES ('app_b', 'org_1', 'b', 'x')");
      return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM apps'))!.n;
    });
    expect(out).toBe(1);
  });

  it('transactions of concurrent requests do not interleave: a read-modify-write under the lock loses no update', async () => {
    await db.run('UPDATE orgs SET credits_usd_nanos = 0 WHERE id = ?', ['org_1']);
    const add = () =>
      db.transaction(async () => {
        const r = await db.get<{ c: number }>(`SELECT credits_usd_nanos AS c FROM orgs WHERE id = ?${db.forUpdate}`, ['org_1']);
        await new Promise((res) => setImmediate(res)); // let the others run in between
        await db.run('UPDATE orgs SET credits_usd_nanos = ? WHERE id = ?', [r!.c + 1, 'org_1']);
      });
    await Promise.all(Array.from({ length: 20 }, add));
    expect((await db.get<{ c: number }>('SELECT credits_usd_nanos AS c FROM orgs WHERE id = ?', ['org_1']))!.c).toBe(20);
  });

  it('a bad statement rejects with the engine error and leaves the store usable', async () => {
    await expect(db.get('SELECT nope FROM orgs')).rejects.toThrow(/nope/);
    expect(await db.get<{ id: string }>('SELECT id FROM orgs')).toEqual({ id: 'org_1' });
  });

  it('the fast connection (records whose loss on power failure breaks no promise) writes what the main one reads, and commits without waiting for the flush', async () => {
    const fast = openFastConnection(sqliteDir, db);
    try {
      expect(fast).not.toBe(db);
      await fast.run("INSERT INTO orgs (id, name, credits_usd_nanos, webhook_secret, created_at) VALUES ('org_fast', 'f', 0, 'w', ?)", [Date.now()]);
      expect(await db.get<{ id: string }>("SELECT id FROM orgs WHERE id = 'org_fast'")).toEqual({ id: 'org_fast' });
      if (dialect === 'postgres') {
        expect(await fast.get('SHOW synchronous_commit')).toEqual({ synchronous_commit: 'off' });
        expect(await db.get('SHOW synchronous_commit')).toEqual({ synchronous_commit: 'on' });
      } else {
        expect(await fast.get('PRAGMA synchronous')).toEqual({ synchronous: 1 }); // NORMAL
        expect(await db.get('PRAGMA synchronous')).toEqual({ synchronous: 2 }); // FULL
      }
    } finally {
      await fast.close();
    }
  });
});

/** Raw stores (no migration run yet), to apply the migrations in two steps. */
const rawStores: Array<[string, () => Promise<Store>]> = [
  ['sqlite', async () => new SqliteStore(openSqliteFile(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'box-store-')), 'box.db'), 'FULL'))],
  ['postgres', async () => openPostgres(await createDatabase(server.url, `store_${Math.random().toString(36).slice(2, 10)}`))],
];

describe.each(rawStores)('migration 382 on %s', (_dialect, open) => {
  it('gives existing boxes the checkpoint they stand on: their own of their generation, else the one they started from, else none', async () => {
    const db = await open();
    try {
      await runMigrations(
        db,
        MIGRATIONS.filter((m) => m.id < 382),
      );
      await db.run("INSERT INTO orgs (id, name, credits_usd_nanos, webhook_secret, created_at) VALUES ('org_1', 'one', 0, 'w', 'x')");
      await db.run("INSERT INTO apps (id, org_id, name, created_at) VALUES ('app_1', 'org_1', 'a', 'x')");
      const box = (id: string, generation: number) =>
        db.run(
          `INSERT INTO boxes (id, org_id, app_id, name, image, status, visibility, created_by_key_id, vcpu_count, memory_mib, disk_gib, checkpoint_generation, created_at, updated_at)
             VALUES (?, 'org_1', 'app_1', ?, 'debian', 'running', 'org', 'key_1', 1, 512, 4, ?, 'x', 'x')`,
          [id, id, generation],
        );
      const cp = (id: string, boxId: string, generation: number, status: string, at: string) =>
        db.run(`INSERT INTO checkpoints (id, org_id, box_id, app_id, generation, status, created_at) VALUES (?, 'org_1', ?, 'app_1', ?, ?, ?)`, [
          id,
          boxId,
          generation,
          status,
          at,
        ]);
      await box('a', 2); // checkpointed twice: on its generation-2 checkpoint
      await cp('cp_a1', 'a', 1, 'ready', '2026-01-01');
      await cp('cp_a2', 'a', 2, 'ready', '2026-01-02');
      await box('b', 0); // a fork of a's first checkpoint, never checkpointed itself
      await db.run("INSERT INTO box_forks (box_id, parent_box_id, checkpoint_id) VALUES ('b', 'a', 'cp_a1')");
      await box('c', 1); // its only checkpoint failed; it was started from a checkpoint since deleted
      await cp('cp_c1', 'c', 1, 'failed', '2026-01-03');
      await db.run("INSERT INTO box_forks (box_id, parent_box_id, checkpoint_id) VALUES ('c', 'a', 'cp_gone')");
      await box('d', 0); // a plain box
      await runMigrations(db);
      const rows = await db.all<{ id: string; on_checkpoint_id: string | null }>('SELECT id, on_checkpoint_id FROM boxes ORDER BY id');
      expect(rows).toEqual([
        { id: 'a', on_checkpoint_id: 'cp_a2' },
        { id: 'b', on_checkpoint_id: 'cp_a1' },
        { id: 'c', on_checkpoint_id: null },
        { id: 'd', on_checkpoint_id: null },
      ]);
    } finally {
      await db.close();
    }
  });
});
