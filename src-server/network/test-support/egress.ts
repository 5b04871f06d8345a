/**
 * Test support for the egress proxy without a VM: a data dir with its SQLite database, the
 * egress log and a real EgressCa, a BoxProxy listening on loopback for one box with the
 * test's policy, resolver and upstream roots, and a close that drains the log first.
 */
import type http2 from 'node:http2';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../db/connection.js';
import { CryptoBox } from '../../util/crypto-box.js';
import { EgressCa } from '../tls/egress-ca.js';
import { BoxProxy } from '../egress/box-proxy.js';
import { EgressRepo } from '../egress/egress-log-repo.js';
import type { ProxyDeps } from '../egress/proxy-deps.js';
import { upstreamAgents } from '../egress/upstream-tls.js';

/** One HTTP/2 request on `session`: `send` writes its body and ends it; answers the response body as text. */
export const h2Text = (session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, send: (s: http2.ClientHttp2Stream) => void) =>
  new Promise<string>((resolve, reject) => {
    const s = session.request(headers);
    let out = '';
    s.on('data', (c) => (out += c));
    s.on('end', () => resolve(out));
    s.on('error', reject);
    send(s);
  });

export const listen = (s: net.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));

export interface TestEgress {
  dataDir: string;
  db: Db;
  repo: EgressRepo;
  ca: EgressCa;
  proxy: BoxProxy;
  port: number;
  /** The deps the proxy was built with (a test may flip a field, e.g. boxLegChaCha). */
  deps: ProxyDeps;
  /** Closes the proxy, writes the log entries of requests cut off by it, closes the database. */
  close(): Promise<void>;
}

/** `deps` without the log, the CA and the upstream agents, which this supplies. */
export async function startTestEgress(name: string, boxId: string, deps: Omit<ProxyDeps, 'log' | 'ca' | 'agents'>): Promise<TestEgress> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `egress-${name}-data-`));
  const db = await openDatabase(dataDir);
  const repo = new EgressRepo(db, 500);
  const ca = await EgressCa.open(db, () => CryptoBox.forDataDir(dataDir));
  const full: ProxyDeps = { ...deps, log: repo, ca, agents: upstreamAgents() };
  const proxy = new BoxProxy(full);
  proxy.boxId = boxId;
  const port = await proxy.listen();
  return {
    dataDir,
    db,
    repo,
    ca,
    proxy,
    port,
    deps: full,
    async close() {
      await proxy.close();
      await new Promise((r) => setTimeout(r, 100)); // entries of cut-off requests are queued for the next batch
      await repo.flush();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
