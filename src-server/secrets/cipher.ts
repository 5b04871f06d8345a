import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const MASTER_KEY_FILE = 'master.key';
const VERSION = 1;

/**
 * The data dir's master key: 32 random bytes in `<dataDir>/master.key` (0600), created
 * on first use. Creation is exclusive (O_EXCL), so two starters agree on one key.
 */
export function loadMasterKey(dataDir: string): Buffer {
  const file = path.join(dataDir, MASTER_KEY_FILE);
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

/**
 * AES-256-GCM, blob = version(1) | iv(12) | tag(16) | ciphertext. The additional data
 * binds a blob to its (org, name), so a ciphertext copied to another row fails to open.
 */
export class SecretCipher {
  constructor(private key: Buffer) {}

  seal(plaintext: string, aad: string): Buffer {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, c.getAuthTag(), ct]);
  }

  open(blob: Buffer, aad: string): string {
    if (blob[0] !== VERSION) throw new Error(`unknown secret blob version ${blob[0]}`);
    const d = createDecipheriv('aes-256-gcm', this.key, blob.subarray(1, 13));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(blob.subarray(13, 29));
    return Buffer.concat([d.update(blob.subarray(29)), d.final()]).toString('utf8');
  }
}
