import net from 'node:net';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends one HTTP/1.1 request byte for byte (fetch re-encodes header values as Latin-1,
 * so it cannot send a UTF-8 Idempotency-Key as real UTF-8 bytes).
 */
export function rawRequest(url: string, method: string, path: string, headers: Record<string, string | Buffer>, body = Buffer.alloc(0)): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(port), hostname);
    const head: Buffer[] = [Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\nContent-Length: ${body.length}\r\n`)];
    for (const [k, v] of Object.entries(headers)) head.push(Buffer.from(`${k}: `), Buffer.isBuffer(v) ? v : Buffer.from(v), Buffer.from('\r\n'));
    head.push(Buffer.from('\r\n'), body);
    const chunks: Buffer[] = [];
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', reject);
    sock.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const lines = all.subarray(0, split).toString('latin1').split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const hs: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        hs[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      let rest: Buffer = all.subarray(split + 4);
      if (hs['transfer-encoding'] === 'chunked') rest = dechunk(rest);
      resolve({ status, headers: hs, body: rest });
    });
    sock.write(Buffer.concat(head));
  });
}

function dechunk(b: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  for (;;) {
    const eol = b.indexOf('\r\n', i);
    const n = parseInt(b.subarray(i, eol).toString(), 16);
    if (!n) return Buffer.concat(out);
    out.push(b.subarray(eol + 2, eol + 2 + n));
    i = eol + 2 + n + 2;
  }
}
