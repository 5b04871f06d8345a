import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './connection.js';
import { IDEMPOTENCY_RETENTION_MS, IdempotencyRepo } from './idempotency-repo.js';

// Issue 14: idempotency records were purged only at start; a running service kept them forever.
describe('idempotency records stay bounded while the service runs', () => {
  it('expired keys are purged every `sweepEvery` claims; fresh ones stay', async () => {
    const db = await openDatabase(fs.mkdtempSync(path.join(os.tmpdir(), 'box-idem-')));
    const repo = new IdempotencyRepo(db, 10);
    const old = Date.now() - IDEMPOTENCY_RETENTION_MS - 1000;
    const ins = "INSERT INTO idempotency_keys (api_key_id, key, request_hash, state, created_at) VALUES ('k', ?, 'h', 'done', ?)";
    for (let i = 0; i < 500; i++) await db.run(ins, [`old-${i}`, old]);
    const count = async () => ((await db.get('SELECT COUNT(*) AS n FROM idempotency_keys')) as { n: number }).n;
    for (let i = 0; i < 9; i++) await repo.claim('k', `new-${i}`, 'h');
    expect(await count()).toBe(509);
    await repo.claim('k', 'new-9', 'h');
    expect(await count()).toBe(10);
    expect(await repo.get('k', 'new-0')).toBeDefined();
    await db.close();
  });
});
