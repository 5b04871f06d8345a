import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';

const hashOf = (m: Migration) => createHash('sha256').update(m.sql).digest('hex');

/**
 * Applies numbered migrations in order. An applied migration is locked by its hash:
 * editing it afterwards is an error (add a new migration instead).
 */
export function runMigrations(db: Database.Database, migrations: Migration[] = MIGRATIONS): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Map((db.prepare('SELECT id, hash FROM schema_migrations').all() as { id: number; hash: string }[]).map((r) => [r.id, r.hash]));
  const sorted = [...migrations].sort((a, b) => a.id - b.id);
  for (const m of sorted) {
    const h = hashOf(m);
    const prev = applied.get(m.id);
    if (prev !== undefined) {
      if (prev !== h) throw new Error(`migration ${m.id} (${m.name}) was edited after being applied`);
      continue;
    }
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (id, name, hash, applied_at) VALUES (?, ?, ?, ?)').run(m.id, m.name, h, new Date().toISOString());
    })();
  }
}
