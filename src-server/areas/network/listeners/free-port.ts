import net from 'node:net';

/** A loopback TCP port that is free right now and not in `avoid` (ports reserved for sleeping boxes). */
export async function freeLoopbackPort(avoid: Set<number> = new Set()): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    if (!avoid.has(port)) return port;
  }
  throw new Error('no free loopback port found');
}

/** Whether 127.0.0.1:port can be bound right now. */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
