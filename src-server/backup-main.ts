import path from 'node:path';
import { parseArgs } from 'node:util';
import { backupStore } from './db/backup.js';
import { openDatabase } from './db/connection.js';
import { boxEnv, defaultDataDir } from './settings.js';

/**
 * `npm run backup -- <file> [--data-dir <dir>]`: a consistent copy of the service's store,
 * taken while the service runs (db/backup.ts): SQLite's online backup of <data dir>/box.db,
 * or pg_dump of BOX_DATABASE_URL. Restore: stop the service and put the file in place of
 * box.db, or `pg_restore --dbname=<url> <file>` into an empty database.
 */
async function main() {
  const env = boxEnv();
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'data-dir': { type: 'string', default: defaultDataDir(env) } } });
  const file = positionals[0];
  if (!file) {
    console.error('usage: npm run backup -- <file> [--data-dir <dir>]   (BOX_DATABASE_URL selects PostgreSQL)');
    process.exit(2);
  }
  const store = await openDatabase(path.resolve(values['data-dir']!), env.databaseUrl);
  try {
    const r = await backupStore(store, file, env.databaseUrl);
    console.log(`Backed up the ${r.store === 'sqlite' ? 'SQLite' : 'PostgreSQL'} store to ${r.file} (${(r.bytes / 1024).toFixed(0)} KiB, ${r.ms} ms).`);
  } finally {
    await store.close();
  }
}

main().catch((e: unknown) => {
  console.error(`Backup failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
