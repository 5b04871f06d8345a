import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import { positional, type Params, type RunResult, type SqlValue, type Store } from './store.js';

const STATEMENT_CACHE_MAX = 512;

/**
 * One writer at a time per database file, shared by every connection of the process to it.
 * better-sqlite3 is synchronous, but a transaction's body now awaits between statements:
 * while it is open, a statement from elsewhere (another connection's would block on the
 * file lock, this connection's would land inside the transaction) waits for it.
 */
class SqliteGate {
  /** The open transaction's end, while one is open. */
  private open: Promise<void> | undefined;
  /** The last transaction in line: the next one starts after it. */
  private tail: Promise<void> = Promise.resolve();

  /** Resolves when no transaction of another async context is open. */
  async wait(): Promise<void> {
    while (this.open) await this.open;
  }

  get busy(): boolean {
    return this.open !== undefined;
  }

  /** Runs `fn` as the only transaction: the ones that asked before it first, in order. */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    const before = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    this.tail = before.then(() => mine);
    await before;
    this.open = mine;
    try {
      return await fn();
    } finally {
      this.open = undefined;
      release();
    }
  }
}

interface TxFrame {
  live: boolean;
}

/** The embedded store: better-sqlite3 behind the async port. */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly forUpdate = '';
  private cache = new Map<string, Database.Statement>();
  private tx = new AsyncLocalStorage<TxFrame>();

  constructor(
    readonly db: Database.Database,
    private gate = new SqliteGate(),
  ) {}

  /** A second connection to the same file (another durability, fast-connection.ts) shares the gate. */
  sharing(db: Database.Database): SqliteStore {
    return new SqliteStore(db, this.gate);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      if (this.cache.size >= STATEMENT_CACHE_MAX) this.cache.clear();
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  private inTx(): boolean {
    return this.tx.getStore()?.live === true;
  }

  private async ready(): Promise<void> {
    if (this.gate.busy && !this.inTx()) await this.gate.wait();
  }

  private bind(sql: string, params?: Params): { s: Database.Statement; v: unknown[] } {
    const p = positional(sql, params);
    return { s: this.stmt(p.sql), v: p.values.map(toSqlite) };
  }

  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    await this.ready();
    const { s, v } = this.bind(sql, params);
    return s.get(...v) as T | undefined;
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    await this.ready();
    const { s, v } = this.bind(sql, params);
    return s.all(...v) as T[];
  }

  async run(sql: string, params?: Params): Promise<RunResult> {
    await this.ready();
    const { s, v } = this.bind(sql, params);
    return { changes: s.run(...v).changes };
  }

  async exec(sql: string): Promise<void> {
    await this.ready();
    this.db.exec(sql);
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTx()) return fn();
    return this.gate.hold(async () => {
      const frame: TxFrame = { live: true };
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const out = await this.tx.run(frame, fn);
        this.db.exec('COMMIT');
        return out;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      } finally {
        frame.live = false;
      }
    });
  }

  async close(): Promise<void> {
    await this.gate.wait();
    this.db.close();
  }
}

function toSqlite(v: SqlValue): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === undefined) return null;
  return v;
}
