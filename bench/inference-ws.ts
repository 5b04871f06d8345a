// WebSocket mode against HTTP (part of `npm run bench:inference`): the same streamed
// Responses request as a WebSocket turn on one open connection (`response.create`, events
// back until `response.completed`) and as a `POST /v1/responses` with `stream: true` read to
// its end (undici's fetch, keep-alive), interleaved so both see the same machine load.
import WebSocket from 'ws';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** One open WebSocket connection; `turn` sends a response.create and resolves at its last event. */
async function wsClient(gwUrl: string, auth: Record<string, string>) {
  const ws = new WebSocket(`${gwUrl.replace(/^http/, 'ws')}/v1/responses`, { headers: auth, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let done: ((e: { type: string; response?: { id: string } }) => void) | null = null;
  // Each message is read as text and only the terminal one is parsed: the same work as the
  // HTTP client's (it reads the whole stream as text and looks for response.completed).
  ws.on('message', (d) => {
    const s = String(d);
    if (s.startsWith('{"type":"response.completed"') || s.startsWith('{"type":"error"')) done?.(JSON.parse(s) as { type: string; response?: { id: string } });
  });
  return {
    turn: (body: Record<string, unknown>) =>
      new Promise<{ type: string; response?: { id: string } }>((resolve) => {
        done = resolve;
        ws.send(JSON.stringify({ type: 'response.create', ...body }));
      }),
    close: () => ws.close(),
  };
}

async function httpTurn(gwUrl: string, auth: Record<string, string>, body: Record<string, unknown>) {
  const res = await fetch(`${gwUrl}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await res.text();
  if (!res.ok || !text.includes('response.completed')) throw new Error(`HTTP turn failed: ${res.status} ${text.slice(0, 200)}`);
}

/**
 * p50 of a WebSocket turn and of an HTTP turn, same request (`model`: box/echo, or an
 * upstream engine of the gateway), and their ratio (goal: WebSocket <= 0.8 of HTTP).
 */
export async function measureWsVsHttp(gwUrl: string, auth: Record<string, string>, model: string, n = 400) {
  const body = { model, input: 'the quick brown fox jumps over the lazy dog', max_output_tokens: 64 };
  const ws = await wsClient(gwUrl, auth);
  try {
    for (let i = 0; i < 200; i++) {
      await ws.turn(body);
      await httpTurn(gwUrl, auth, body);
    }
    const w: number[] = [];
    const h: number[] = [];
    for (let i = 0; i < n; i++) {
      for (const k of i % 2 ? (['h', 'w'] as const) : (['w', 'h'] as const)) {
        const t = performance.now();
        if (k === 'w') {
          const e = await ws.turn(body);
          if (e.type !== 'response.completed') throw new Error(`WebSocket turn failed: ${JSON.stringify(e)}`);
        } else await httpTurn(gwUrl, auth, body);
        (k === 'w' ? w : h).push(performance.now() - t);
      }
    }
    return {
      model,
      turns: n,
      websocket_p50_ms: r3(pct(w, 50)),
      http_p50_ms: r3(pct(h, 50)),
      websocket_p95_ms: r3(pct(w, 95)),
      http_p95_ms: r3(pct(h, 95)),
      ratio_p50: r3(pct(w, 50) / pct(h, 50)),
    };
  } finally {
    ws.close();
  }
}
