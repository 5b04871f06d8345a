import type http from 'node:http';

/** Answers 200 with `total` bytes made of `chunk` repeated, honouring backpressure (tests and benches of large bodies). */
export function sendBulk(res: http.ServerResponse, chunk: Buffer, total: number): void {
  res.writeHead(200, { 'content-length': total });
  let left = Math.floor(total / chunk.length);
  const pump = () => {
    while (left > 0) {
      left--;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

/** Answers 200 with `body` (e.g. random bytes, so that a misplaced piece shows in its hash), in `piece`-sized writes honouring backpressure. */
export function sendBody(res: http.ServerResponse, body: Buffer, piece = 64 * 1024): void {
  res.writeHead(200, { 'content-length': body.length });
  let at = 0;
  const pump = () => {
    while (at < body.length) {
      const end = Math.min(body.length, at + piece);
      const ok = res.write(body.subarray(at, end));
      at = end;
      if (!ok) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}
