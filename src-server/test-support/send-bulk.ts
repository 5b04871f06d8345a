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
