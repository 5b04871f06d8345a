/**
 * The store port: every repository talks to the database through this, asynchronously,
 * whichever engine is behind it (sqlite-store.ts, the embedded default; pg-store.ts, when
 * BOX_DATABASE_URL names a PostgreSQL server). SQL is written once with `?` placeholders
 * (or `@name` with an object of parameters); the PostgreSQL adapter numbers them ($1, $2...).
 */
export type SqlValue = string | number | bigint | boolean | Buffer | Uint8Array | null;
/** Positional values, or an object whose fields the SQL names as `@field` (a row object will do). */
export type Params = readonly unknown[] | object;
export type Dialect = 'sqlite' | 'postgres';

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

interface Queryable {
  readonly dialect: Dialect;
  /** The first row, or undefined. */
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  run(sql: string, params?: Params): Promise<RunResult>;
}

export interface Store extends Queryable {
  /**
   * Runs `fn` in one transaction (BEGIN ... COMMIT; ROLLBACK when it throws). Statements that
   * `fn` makes through this store, directly or through repositories, go to the transaction
   * (the adapters follow it with AsyncLocalStorage), so a repository need not be handed it.
   * Inside, do database work only: no network, no timers (SQLite holds every other statement
   * of the process until the commit). A nested call joins the outer transaction.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * `FOR UPDATE` on PostgreSQL (a row lock, held to the commit), empty on SQLite (whose
   * write transaction already excludes every other writer). Append it to a SELECT.
   */
  readonly forUpdate: string;
  /** Several statements, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Turns `@name` placeholders and an object of parameters into positional ones. */
export function positional(sql: string, params: Params | undefined): { sql: string; values: SqlValue[] } {
  if (params === undefined) return { sql, values: [] };
  if (Array.isArray(params)) return { sql, values: params as SqlValue[] };
  if (Buffer.isBuffer(params)) throw new Error('SQL parameters: pass an array of values');
  const named = params as Record<string, SqlValue | undefined>;
  const values: SqlValue[] = [];
  const out = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (m, name: string) => {
    if (!(name in named)) throw new Error(`SQL parameter @${name} is missing`);
    values.push(named[name] ?? null);
    return '?';
  });
  return { sql: out, values };
}
