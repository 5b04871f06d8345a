import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

/**
 * A 32-byte secret kept in a file (mode 0600), created on first use. Creation is exclusive
 * (O_EXCL) and synced, so two starters agree on one key; a file of another size is refused
 * rather than guessed at.
 */
export function loadOrCreateKeyFile(file: string): Buffer {
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    try {
      fs.writeSync(fd, randomBytes(32));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const key = fs.readFileSync(file);
  if (key.length !== 32) throw new Error(`${file} must hold exactly 32 bytes (found ${key.length}); refusing to guess.`);
  return key;
}
