/** OCI import without a VM: layers, whiteouts, owners and modes land in the ext4 (read back with debugfs). */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImageStore } from './image-store.js';
import { importOciArchive } from './oci-import.js';
import { makeTestDockerArchive } from './test-support/archive.js';

const debugfs = (img: string, cmd: string) => execFileSync('debugfs', ['-R', cmd, img], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

describe('OCI import', () => {
  it('applies layers in order with whiteouts, keeps owners and modes, and records the run config', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oci-'));
    const archive = path.join(dir, 'img.tar');
    await makeTestDockerArchive(archive);
    const store = new ImageStore(dir);
    const m = await importOciArchive(store, archive, 'bb');
    expect(m.digest).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(m.config).toEqual({ env: { PATH: '/bin', GREETING: 'hello-oci' }, workdir: '/app', user: null, cmd: expect.arrayContaining(['/bin/sh']) });
    const old = debugfs(m.disk, 'ls /old');
    expect(old).toContain('kept.txt');
    expect(old).not.toContain('gone.txt');
    const opq = debugfs(m.disk, 'ls /opq');
    expect(opq).toContain('b.txt');
    expect(opq).not.toContain('a.txt');
    const st = debugfs(m.disk, 'stat /app/hello.txt');
    expect(st).toMatch(/User:\s+1000\s+Group:\s+1000/);
    expect(st).toMatch(/Mode:\s+0640/);
    expect(debugfs(m.disk, 'stat /bin/busybox')).toMatch(/Mode:\s+0755/);
    expect(debugfs(m.disk, 'ls /')).toContain('.box');

    // the same archive under another name shares the disk; deleting one keeps the other's
    const m2 = await importOciArchive(store, archive, 'bb2');
    expect(m2.disk).toBe(m.disk);
    await store.remove('bb');
    expect(fs.existsSync(m.disk)).toBe(true);
    await store.remove('bb2');
    expect(fs.existsSync(m.disk)).toBe(false);
    expect(store.names()).toEqual(['debian']);
  }, 60_000);

  it('refuses an archive that is not an image with a readable error', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oci-'));
    const bad = path.join(os.tmpdir(), `bad-${process.pid}.tar`);
    execFileSync('tar', ['-cf', bad, '-C', dir, '.']);
    await expect(importOciArchive(new ImageStore(dir), bad, 'x')).rejects.toThrow(/not an image archive/);
    expect(new ImageStore(dir).names()).toEqual(['debian']);
  });
});
