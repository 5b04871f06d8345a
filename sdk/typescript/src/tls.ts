import https from 'node:https';
import { Readable } from 'node:stream';
import tls from 'node:tls';

/**
 * Talking to a service that serves HTTPS with its own certificate (`--listen` beyond
 * loopback): the client pins the certificate's SHA-256 fingerprint, the way SSH pins a host
 * key (`box context add` records it on first contact). Node's global fetch cannot pin, so
 * `pinnedFetch` is a fetch over node:https that:
 *
 * - trusts the system's roots plus `ca` (the top of the chain seen on first contact: the
 *   service's own serving CA), so the chain verifies;
 * - then accepts only a leaf whose fingerprint is `fingerprint` (checkServerIdentity, which
 *   runs before a byte of the request, the key included, is sent); the host name need not
 *   match, the pin is stronger.
 *
 * A different certificate is refused with `PinMismatchError`, naming both fingerprints.
 */
export interface TlsPin {
  /** SHA-256 fingerprint of the service's certificate, `AB:CD:...` (case and colons ignored). */
  fingerprint: string;
  /** PEM certificate(s) to trust besides the system's: the service's CA. */
  ca?: string;
}

export class PinMismatchError extends Error {
  constructor(
    readonly url: string,
    readonly pinned: string,
    readonly presented: string | undefined,
    hint = '',
  ) {
    super(
      `The TLS certificate of ${url} is not the one pinned for it: pinned SHA-256 ${pinned}, presented ${presented ?? 'an unverifiable one'}. ` +
        `Someone may be between you and the service, or its certificate was replaced. Do not send a key to it; if the change is expected, ${hint || 'pin the new fingerprint'}.`,
    );
    this.name = 'PinMismatchError';
  }
}

export const normalizeFingerprint = (fp: string) =>
  fp
    .replace(/^sha256:/i, '')
    .replace(/[^0-9a-f]/gi, '')
    .toUpperCase()
    .replace(/..(?!$)/g, '$&:');

export interface PeerCertificate {
  fingerprint: string;
  subject: string;
  issuer: string;
  valid_to: string;
  /** Whether the chain verifies against the system's roots (a public CA) for the URL's host name. */
  trusted: boolean;
  /** PEM of the top of the chain the server sent (its CA, or the leaf when self-signed). */
  chainTop: string;
}

const toPem = (raw: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${raw.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;

/** Connects, reads the certificate the server presents and disconnects: no request, no key sent. */
export function probeCertificate(url: string, timeoutMs = 10_000): Promise<PeerCertificate> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port: Number(u.port || 443),
      servername: net(host) ? undefined : host,
      rejectUnauthorized: false,
      timeout: timeoutMs,
    });
    socket.once('timeout', () => socket.destroy(new Error(`no TLS answer from ${u.host} within ${timeoutMs} ms`)));
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const leaf = socket.getPeerCertificate(true);
      let top = leaf;
      while (top.issuerCertificate && top.issuerCertificate !== top && top.issuerCertificate.raw) top = top.issuerCertificate;
      const verified = socket.authorized;
      socket.end();
      if (!leaf?.raw) return reject(new Error(`${u.host} presented no certificate`));
      resolve({
        fingerprint: leaf.fingerprint256,
        subject: Object.entries(leaf.subject ?? {})
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', '),
        issuer: Object.entries(leaf.issuer ?? {})
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', '),
        valid_to: leaf.valid_to,
        trusted: verified,
        chainTop: toPem(top.raw),
      });
    });
  });
}

const net = (h: string) => /^[\d.]+$/.test(h) || h.includes(':');

type Body = RequestInit['body'] | NodeJS.ReadableStream;

/**
 * An https.Agent that trusts the system's roots plus `pin.ca` and accepts only the pinned
 * leaf (the check runs in the handshake, before any byte of a request). `pinnedFetch` and
 * the local service's proxy to a context (src-server/platform/http/context-proxy.ts) use it.
 */
export function pinnedAgent(pin: TlsPin): https.Agent {
  const want = normalizeFingerprint(pin.fingerprint);
  return new https.Agent({
    keepAlive: true,
    ca: [...tls.rootCertificates, ...(pin.ca ? [pin.ca] : [])],
    checkServerIdentity: (_host, cert) => (normalizeFingerprint(cert.fingerprint256) === want ? undefined : new Error(`pin mismatch: ${cert.fingerprint256}`)),
  });
}

/** Whether a request's error is the TLS handshake refusing the server (the pin, or a chain that does not verify). */
export function tlsRefusal(e: NodeJS.ErrnoException): boolean {
  return /pin mismatch/.test(e.message) || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(e.code ?? '');
}

/** A `fetch` that only talks to a server presenting the pinned certificate (see above). */
export function pinnedFetch(pin: TlsPin, hint?: string): typeof fetch {
  const want = normalizeFingerprint(pin.fingerprint);
  const makeAgent = (ca: string | undefined) => pinnedAgent({ fingerprint: want, ca });
  // Without a CA, the chain the server sends is taken as it is (the leaf's pin is the check that matters).
  let agent: Promise<https.Agent> | undefined = pin.ca ? Promise.resolve(makeAgent(pin.ca)) : undefined;
  const doFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
    if (url.protocol !== 'https:') return fetch(input, init);
    agent ??= probeCertificate(url.toString()).then(
      (p) => makeAgent(p.chainTop),
      () => makeAgent(undefined),
    );
    const usedAgent = await agent;
    const headers = new Headers(init.headers);
    const body = init.body as Body;
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(url, {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        agent: usedAgent,
        servername: net(url.hostname) ? undefined : url.hostname,
      });
      const signal = init.signal;
      const abort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      req.once('error', (e: NodeJS.ErrnoException) => {
        if (!tlsRefusal(e)) return reject(Object.assign(new TypeError('fetch failed'), { cause: e }));
        probeCertificate(url.toString()).then(
          (p) => reject(new PinMismatchError(url.origin, want, p.fingerprint, hint)),
          () => reject(new PinMismatchError(url.origin, want, undefined, hint)),
        );
      });
      req.once('response', (res) => {
        const h = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const empty = res.statusCode === 204 || res.statusCode === 304 || init.method === 'HEAD';
        if (empty) res.resume();
        resolve(
          new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status: res.statusCode!,
            statusText: res.statusMessage,
            headers: h,
          }),
        );
      });
      writeBody(req, body).catch((e: unknown) => req.destroy(e as Error));
    });
  };
  return doFetch as typeof fetch;
}

async function writeBody(req: import('node:http').ClientRequest, body: Body): Promise<void> {
  if (body === undefined || body === null) return void req.end();
  if (typeof body === 'string' || body instanceof Uint8Array) return void req.end(body);
  if (body instanceof ArrayBuffer) return void req.end(Buffer.from(body));
  if (body instanceof URLSearchParams) return void req.end(body.toString());
  if (body instanceof Blob) return void req.end(Buffer.from(await body.arrayBuffer()));
  if (typeof (body as NodeJS.ReadableStream).pipe === 'function') return void (body as NodeJS.ReadableStream).pipe(req);
  if (typeof (body as ReadableStream).getReader === 'function') return void Readable.fromWeb(body as import('node:stream/web').ReadableStream).pipe(req);
  if (Symbol.asyncIterator in (body as object)) return void Readable.from(body as AsyncIterable<Uint8Array>).pipe(req);
  throw new TypeError('pinnedFetch: unsupported body type');
}
