import { loadOrCreateKeyFile } from './key-file.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';

/**
 * Encryption at rest for values the service must read back (secrets, the SSH CA key,
 * upstream API keys, cron env values): AES-256-GCM under one 32-byte key in
 * `<dataDir>/master.key` (0600, made on first use).
 * Sealed layout: version byte (1) | 12-byte IV | 16-byte tag | ciphertext. Optional
 * associated data binds a value to where it is stored (a copy moved elsewhere fails to open).
 */
export const MASTER_KEY_FILE = 'master.key';
const VERSION = 1;

/** The master key (util/key-file.ts: exclusive, synced creation). */
function loadMasterKey(dataDir: string): Buffer {
  return loadOrCreateKeyFile(path.join(dataDir, MASTER_KEY_FILE));
}

export class CryptoBox {
  private constructor(private key: Buffer) {}

  static forDataDir(dataDir: string): CryptoBox {
    return new CryptoBox(loadMasterKey(dataDir));
  }

  seal(plain: string | Buffer, aad?: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    if (aad !== undefined) cipher.setAAD(Buffer.from(aad));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the value was tampered with, sealed under another key, or with other associated data. */
  open(sealed: Buffer, aad?: string): Buffer {
    if (sealed[0] !== VERSION) throw new Error(`unknown sealed-value version ${sealed[0]}`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 13));
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
  }

  openString(sealed: Buffer, aad?: string): string {
    return this.open(sealed, aad).toString('utf8');
  }
}
