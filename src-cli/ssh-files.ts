import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sshpk from 'sshpk';
import type { CliConfig } from './config.js';
import { CliError } from './errors.js';

/** The key pair a certificate is issued for: `<key>` (private), `<key>.pub`, `<key>-cert.pub`. */
export interface KeyFiles {
  key: string;
  pub: string;
  cert: string;
}

/** `--key` may name the private key or its `.pub`; the default is ~/.ssh/id_ed25519. */
export function keyFiles(arg: string | undefined): KeyFiles {
  const given = arg ? path.resolve(arg.replace(/^~(?=\/)/, os.homedir())) : path.join(os.homedir(), '.ssh', 'id_ed25519');
  const key = given.endsWith('.pub') ? given.slice(0, -4) : given;
  return { key, pub: `${key}.pub`, cert: `${key}-cert.pub` };
}

export function readPublicKey(k: KeyFiles): string {
  try {
    return fs.readFileSync(k.pub, 'utf8').trim();
  } catch {
    throw new CliError(`no public key at ${k.pub}: create one with "ssh-keygen -t ed25519 -f ${k.key}", or pass --key`, 2);
  }
}

/** Seconds the certificate at `k.cert` stays valid; 0 when missing, unreadable or expired. */
export function certSecondsLeft(k: KeyFiles, now = new Date()): number {
  try {
    const cert = sshpk.parseCertificate(fs.readFileSync(k.cert), 'openssh');
    if (cert.isExpired(now)) return 0;
    return Math.floor((cert.validUntil.getTime() - now.getTime()) / 1000);
  } catch {
    return 0;
  }
}

/** Host keys of boxes, pinned under the box id (ssh's HostKeyAlias), fetched over the API. */
export function knownHostsFile(config: CliConfig): string {
  return path.join(config.dataDir, 'cli', 'known_hosts');
}

export function pinHostKey(file: string, alias: string, hostKeyLine: string) {
  const [type, b64] = hostKeyLine.trim().split(/\s+/);
  if (!type || !b64) throw new CliError(`the box's host key is not an OpenSSH public key: ${hostKeyLine.slice(0, 80)}`);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const kept = fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith(`${alias} `))
    : [];
  fs.writeFileSync(file, `${[...kept, `${alias} ${type} ${b64}`].join('\n')}\n`, { mode: 0o600 });
}

/** Quotes an argument for display in a copy-pasteable shell command. */
export const shq = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
