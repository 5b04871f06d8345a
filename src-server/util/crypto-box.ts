import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Encryption at rest for values the service must read back (secrets, upstream API keys).
 * AES-256-GCM under one 32-byte key in `<dataDir>/master.key` (0600, made on first use).
 * Sealed layout: version byte (1) | 12-byte IV | 16-byte tag | ciphertext.
 */
export const MASTER_KEY_FILE = 'master.key';
const VERSION = 1;

export class CryptoBox {
  private constructor(private key: Buffer) {}

  /** Reads the data dir's master key, creating it if absent (safe if two callers race). */
  static forDataDir(dataDir: string): CryptoBox {
    const file = path.join(dataDir, MASTER_KEY_FILE);
    try {
      fs.writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const key = fs.readFileSync(file);
    if (key.length !== 32) throw new Error(`${file} must hold exactly 32 bytes`);
    return new CryptoBox(key);
  }

  seal(plain: string | Buffer): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the value was tampered with or sealed under another key. */
  open(sealed: Buffer): Buffer {
    if (sealed[0] !== VERSION) throw new Error('unknown sealed-value version');
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 13));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
  }

  openString(sealed: Buffer): string {
    return this.open(sealed).toString('utf8');
  }
}
