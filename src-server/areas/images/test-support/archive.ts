/**
 * Test support: a `docker save` archive made from a few files, no registry: the host's
 * static busybox with applet links, a user-owned file, and a second layer with a whiteout
 * and an opaque directory, so import has layers, owners, modes and deletions to honour.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { pack, type Pack } from 'tar-stream';

const APPLETS = ['sh', 'cat', 'ls', 'sleep', 'echo', 'kill', 'mkdir', 'touch', 'chown', 'stat', 'id', 'setsid', 'env', 'pwd', 'grep', 'ps'];

type Entry = { name: string; body?: string | Buffer; mode?: number; uid?: number; gid?: number; type?: 'file' | 'directory' | 'symlink'; linkname?: string };

async function tarOf(entries: Entry[]): Promise<Buffer> {
  const p: Pack = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((res, rej) => {
    p.on('data', (c) => chunks.push(c as Buffer));
    p.on('end', () => res());
    p.on('error', rej);
  });
  for (const e of entries) {
    const type = e.type ?? (e.body === undefined ? 'directory' : 'file');
    const header = { name: e.name, mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644), uid: e.uid ?? 0, gid: e.gid ?? 0, type, linkname: e.linkname };
    await new Promise<void>((res, rej) => p.entry(header, type === 'file' ? (e.body ?? '') : '', (err) => (err ? rej(err) : res())));
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

export const TEST_CMD_MARKER = 'cmd says';

/** `withCmd: false` for fake-runtime tests, whose "guest" commands run on the host. */
export async function makeTestDockerArchive(out: string, opts: { withCmd?: boolean } = {}, busybox = '/usr/bin/busybox'): Promise<void> {
  const layer1 = await tarOf([
    { name: 'bin/' },
    { name: 'bin/busybox', body: readFileSync(busybox), mode: 0o755 },
    ...APPLETS.map((a) => ({ name: `bin/${a}`, type: 'symlink' as const, linkname: 'busybox' })),
    { name: 'etc/' },
    { name: 'etc/passwd', body: 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:app:/app:/bin/sh\n' },
    { name: 'etc/group', body: 'root:x:0:\napp:x:1000:\n' },
    { name: 'old/' },
    { name: 'old/gone.txt', body: 'deleted by layer 2\n' },
    { name: 'old/kept.txt', body: 'kept\n' },
    { name: 'opq/' },
    { name: 'opq/a.txt', body: 'hidden by the opaque dir\n' },
  ]);
  const layer2 = await tarOf([
    { name: 'old/.wh.gone.txt', body: '' },
    { name: 'opq/' },
    { name: 'opq/.wh..wh..opq', body: '' },
    { name: 'opq/b.txt', body: 'only me\n' },
    { name: 'app/', uid: 1000, gid: 1000 },
    { name: 'app/hello.txt', body: 'hello from the image\n', mode: 0o640, uid: 1000, gid: 1000 },
  ]);
  const config = {
    architecture: 'amd64',
    os: 'linux',
    config: {
      Env: ['PATH=/bin', 'GREETING=hello-oci'],
      WorkingDir: '/app',
      Cmd: opts.withCmd === false ? null : ['/bin/sh', '-c', `echo ${TEST_CMD_MARKER} $GREETING from $(pwd); exec sleep 100000`],
    },
    rootfs: { type: 'layers', diff_ids: [] },
  };
  const manifest = [{ Config: 'config.json', RepoTags: ['test/busybox:latest'], Layers: ['l1/layer.tar', 'l2/layer.tar'] }];
  const outer = pack();
  const write = pipeline(outer, createWriteStream(out));
  outer.entry({ name: 'manifest.json' }, JSON.stringify(manifest));
  outer.entry({ name: 'config.json' }, JSON.stringify(config));
  outer.entry({ name: 'l1/', type: 'directory' });
  outer.entry({ name: 'l1/layer.tar' }, layer1);
  outer.entry({ name: 'l2/', type: 'directory' });
  outer.entry({ name: 'l2/layer.tar' }, layer2);
  outer.finalize();
  await write;
}
