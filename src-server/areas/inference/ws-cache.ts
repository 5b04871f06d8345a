import { invalid } from '../../kernel/domain-errors.js';
import type { StoredResponse } from './store/responses-repo.js';

/** Responses kept per connection (the most recent ones): continuation needs the last few, not a history. */
const MAX_ENTRIES = 64;

/**
 * The responses made on one WebSocket connection (WebSocket mode, routes/responses-ws.ts),
 * stored or not, so `previous_response_id` continues from them without the database, and
 * from `store: false` ones at all. It lives and dies with its connection.
 */
export class ConnectionCache {
  private entries = new Map<string, StoredResponse>();

  get(id: string): StoredResponse | undefined {
    return this.entries.get(id);
  }

  add(r: StoredResponse): void {
    this.entries.set(r.id, r);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** A continuation from `id` failed: it is not offered again (a stored one is read from the store next time). */
  evict(id: string): void {
    this.entries.delete(id);
  }
}

/** OpenAI's wording and code (400): the id names no response this connection or the store knows. */
export const previousNotFound = (id: string) => invalid(`Previous response with id '${id}' not found.`, 'previous_response_id', 'previous_response_not_found');
