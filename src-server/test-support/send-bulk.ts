import type http from 'node:http';

/** Answers 200 with Content-Length `length`, then `count` pieces, honouring backpressure. */
function sendPieces(res: http.ServerResponse, length: number, count: number, piece: (i: number) => Buffer): void {
  res.writeHead(200, { 'content-length': length });
  let i = 0;
  const pump = () => {
    while (i < count) if (!res.write(piece(i++))) return void res.once('drain', pump);
    res.end();
  };
  pump();
}

/** Answers 200 with `total` bytes made of `chunk` repeated, honouring backpressure (tests and benches of large bodies). */
export function sendBulk(res: http.ServerResponse, chunk: Buffer, total: number): void {
  sendPieces(res, total, Math.floor(total / chunk.length), () => chunk);
}

/** Answers 200 with `body` (e.g. random bytes, so that a misplaced piece shows in its hash), in `piece`-sized writes honouring backpressure. */
export function sendBody(res: http.ServerResponse, body: Buffer, piece = 64 * 1024): void {
  sendPieces(res, body.length, Math.ceil(body.length / piece), (i) => body.subarray(i * piece, (i + 1) * piece));
}
