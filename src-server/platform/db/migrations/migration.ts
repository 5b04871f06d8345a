/** One numbered schema migration (db/migrate.ts applies them in order). */
export interface Migration {
  id: number;
  name: string;
  sql: string;
}
