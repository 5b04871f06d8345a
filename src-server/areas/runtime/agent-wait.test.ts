/**
 * The host refuses an agent that speaks another protocol version, with a message that says
 * what to do; after a restore it sets the clock, and reseeds the RNG unless told the state
 * is the box's own running for the first time. A boot whose VM process exits fails the wait
 * at once, not at the deadline (a template build under load waits up to 180 s times the load
 * factor; CI saw a first create wait past the client's 5-minute headers timeout).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFields, encodeFrame, FrameDecoder, M, PROTO_VERSION, T } from '../../platform/guest/protocol.js';
import { BoxFolder } from './box-folder.js';
import { waitForAgent } from './agent-wait.js';

let server: net.Server | undefined;
afterEach(() => server?.close());

/** Message types the stand-in agent received, in order. */
let seen: number[] = [];

/** A stand-in agent answering HELLO with the given protocol version, and TIME_SET / RESEED with OK. */
async function fakeAgent(proto: number) {
  server?.close();
  seen = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-proto-'));
  const folder = new BoxFolder(dir);
  server = net.createServer((sock) => {
    const dec = new FrameDecoder();
    sock.on('data', (d) => {
      for (const f of dec.push(d)) {
        seen.push(f.type);
        if (f.type === M.TIME_SET || f.type === M.RESEED) sock.write(encodeFrame(M.OK, 0, f.stream, encodeFields([[T.APPLIED, 1]])));
        if (f.type !== M.HELLO) continue;
        const fields = encodeFields([
          [T.VERSION, `0.0.${proto}-test`],
          [T.PROTO, proto],
          [T.UPTIME_MS, 1],
          [T.PID, 1],
          [T.INIT, 0],
          [T.MAX_STREAM, 0],
        ]);
        sock.write(encodeFrame(M.HELLO_REPLY, 0, f.stream, fields));
      }
    });
    sock.on('error', () => {});
  });
  await new Promise<void>((r) => server!.listen(folder.agentSock, r));
  return folder;
}

describe('agent protocol version on connect', () => {
  it('connects to an agent of this protocol version', async () => {
    const client = await waitForAgent(await fakeAgent(PROTO_VERSION), { timeoutMs: 5000 });
    expect(client.info?.protocol).toBe(PROTO_VERSION);
    client.close();
  });

  it('refuses an older or newer agent with a clear error', async () => {
    const err = await waitForAgent(await fakeAgent(PROTO_VERSION + 1), { timeoutMs: 5000 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`speaks protocol ${PROTO_VERSION + 1} .*needs ${PROTO_VERSION}.*rebuild the image`));
  });
});

describe('after a restore', () => {
  it("sets the clock and reseeds the RNG; a first run of the box's own saved state (resume) is not reseeded", async () => {
    (await waitForAgent(await fakeAgent(PROTO_VERSION), { timeoutMs: 5000, afterRestore: true })).close();
    expect(seen.filter((t) => t !== M.HELLO).sort()).toEqual([M.TIME_SET, M.RESEED].sort());
    (await waitForAgent(await fakeAgent(PROTO_VERSION), { timeoutMs: 5000, afterRestore: true, reseed: false })).close();
    expect(seen.filter((t) => t !== M.HELLO)).toEqual([M.TIME_SET]);
  });
});

describe('a VM process that is gone', () => {
  it('ends the wait as soon as the process has exited, naming it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-gone-'));
    // a process that exited and was reaped stands for a QEMU that crashed while booting
    const child = spawn('true');
    const pid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    const t0 = Date.now();
    const err = await waitForAgent(new BoxFolder(dir), { timeoutMs: 60_000, pid }).catch((e: Error) => e);
    expect((err as Error).message).toContain(`its VM process (pid ${pid}) exited`);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('keeps waiting while the process lives, until the deadline', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-gone-'));
    const t0 = Date.now();
    const err = await waitForAgent(new BoxFolder(dir), { timeoutMs: 400, pid: process.pid }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/not ready/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
  });
});
