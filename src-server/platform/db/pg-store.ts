import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { positional, type Params, type RunResult, type SqlValue, type Store } from './store.js';

// BIGINT (counts, millisecond times) and NUMERIC (SUM of BIGINT) as numbers, as SQLite gives them.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/** `?` placeholders, outside quoted text, become $1, $2... */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  let out = '';
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

const translated = new Map<string, string>();
function toPg(sql: string): string {
  let t = translated.get(sql);
  if (t === undefined) {
    t = numberPlaceholders(sql);
    if (translated.size > 2048) translated.clear();
    translated.set(sql, t);
  }
  return t;
}

interface TxFrame {
  client: pg.PoolClient;
  live: boolean;
}

/**
 * PostgreSQL behind the store port: a `pg` Pool; a transaction holds one client from BEGIN
 * to COMMIT. Durability is PostgreSQL's: each connection runs with synchronous_commit = on,
 * and a statement's promise settles only after the server answered its COMMIT (an
 * autocommit statement commits before it answers), so an acknowledged write survives kill -9.
 */
export class PgStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly forUpdate = ' FOR UPDATE';
  private tx = new AsyncLocalStorage<TxFrame>();

  constructor(readonly pool: pg.Pool) {}

  /** The server's URL, as the pool was opened on it. */
  get url(): string {
    return this.pool.options.connectionString!;
  }

  private on(): pg.Pool | pg.PoolClient {
    const f = this.tx.getStore();
    return f?.live ? f.client : this.pool;
  }

  private async query(sql: string, params?: Params): Promise<pg.QueryResult> {
    const p = positional(sql, params);
    return this.on().query(toPg(p.sql), p.values.map(toPgValue));
  }

  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async run(sql: string, params?: Params): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await this.on().query(sql);
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.tx.getStore()?.live) return fn();
    const client = await this.pool.connect();
    const frame: TxFrame = { client, live: true };
    let broken = false;
    try {
      await client.query('BEGIN');
      const out = await this.tx.run(frame, fn);
      frame.live = false;
      await client.query('COMMIT');
      return out;
    } catch (e) {
      frame.live = false;
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw e;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function toPgValue(v: SqlValue | undefined): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v);
  return v;
}

const WARM_CONNECTIONS = 4;

/** A pool on `url` whose sessions commit with `synchronous_commit` as given, in UTC. */
export function openPostgresPool(url: string, max: number, synchronousCommit: 'on' | 'off'): pg.Pool {
  // `min` connections stay open when idle (pg closes idle ones after 10 s by default): a box create
  // runs three statements side by side, and a new connection costs more than all of them.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    min: Math.min(WARM_CONNECTIONS, max),
    options: `-c synchronous_commit=${synchronousCommit} -c TimeZone=UTC`,
  });
  pool.on('error', () => {}); // an idle client's lost connection: the pool drops it, the next query reconnects
  return pool;
}

/** Connects to `url` and checks the server answers; the pool's connections commit synchronously. */
export async function openPostgres(url: string, max = 10): Promise<PgStore> {
  const pool = openPostgresPool(url, max, 'on');
  try {
    // opens the warm connections now, not during the first requests
    await Promise.all(Array.from({ length: Math.min(WARM_CONNECTIONS, max) }, () => pool.query('SELECT 1')));
  } catch (e) {
    await pool.end().catch(() => {});
    throw new Error(`BOX_DATABASE_URL: cannot reach PostgreSQL (${(e as Error).message}).`, { cause: e });
  }
  return new PgStore(pool);
}
