import RFB from '@novnc/novnc';
import { useEffect, useRef, useState } from 'react';
import type { Box } from '@box/contract/boxes';
import { apiFetch } from '../../api/client.js';
import { ScreenRecordings } from './ScreenRecordings.js';

type Link = 'connecting' | 'connected' | 'disconnected';

/**
 * The live view of a desktop box (issue 37): noVNC on the service's `/v1/desktop/vnc`
 * WebSocket (same origin, the session cookie). View-only until "Take control"; "Give back"
 * returns the screen to whoever drives it (an agent through the API, MCP or an SDK).
 * Below it, the screen's recordings and their player (ScreenRecordings.tsx).
 */
export function ScreenPanel({ box }: { box: Box }) {
  const screen = useRef<HTMLDivElement>(null);
  const rfb = useRef<RFB | null>(null);
  const [link, setLink] = useState<Link>('connecting');
  const [control, setControl] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [shotUrl, setShotUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = box.status === 'running' || box.status === 'sleeping';

  useEffect(() => {
    if (!running || !screen.current) return;
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const r = new RFB(screen.current, `${proto}://${location.host}/v1/desktop/vnc?box_id=${encodeURIComponent(box.box_id)}`, { shared: true });
    r.viewOnly = true;
    r.scaleViewport = true;
    r.focusOnClick = false;
    setLink('connecting');
    setControl(false);
    r.addEventListener('connect', () => setLink('connected'));
    r.addEventListener('disconnect', () => setLink('disconnected'));
    rfb.current = r;
    return () => {
      rfb.current = null;
      r.disconnect();
    };
  }, [box.box_id, running, attempt]);

  const toggle = () => {
    const r = rfb.current;
    if (!r) return;
    r.viewOnly = control;
    r.focusOnClick = !control;
    // the keys go to the view; the page stays where it is (a plain focus() scrolls the canvas into view)
    if (!control) r.focus({ preventScroll: true });
    setControl(!control);
  };

  const screenshot = async () => {
    setError(null);
    try {
      const res = await apiFetch(`/v1/boxes/${encodeURIComponent(box.box_id)}/desktop/screenshot`);
      const url = URL.createObjectURL(await res.blob());
      setShotUrl((old) => (old && URL.revokeObjectURL(old), url));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (!running) return <p className="text-sm text-ink-400">The screen shows while the box runs.</p>;
  return (
    <section className="space-y-2" data-testid="screen">
      <div className="flex items-center gap-2 text-xs">
        <span data-testid="screen-state" className={link === 'connected' ? 'text-green-400' : 'text-ink-400'}>
          {link === 'connected' ? (control ? 'You have control' : 'Watching (view only)') : link}
        </span>
        <button
          type="button"
          data-testid="screen-control"
          disabled={link !== 'connected'}
          onClick={toggle}
          className="rounded bg-ink-700 px-2 py-1 hover:bg-ink-600 disabled:opacity-50"
        >
          {control ? 'Give back' : 'Take control'}
        </button>
        <button type="button" data-testid="screen-shot" onClick={() => void screenshot()} className="rounded bg-ink-700 px-2 py-1 hover:bg-ink-600">
          Screenshot
        </button>
        {link === 'disconnected' && (
          <button type="button" onClick={() => setAttempt((n) => n + 1)} className="rounded bg-ink-700 px-2 py-1 hover:bg-ink-600">
            Reconnect
          </button>
        )}
        {shotUrl && (
          <a href={shotUrl} download={`screenshot-${box.name}.png`} className="text-accent-300 hover:underline" data-testid="screen-shot-link">
            screenshot.png
          </a>
        )}
        {error && <span className="text-red-400">{error}</span>}
      </div>
      <div
        ref={screen}
        data-testid="screen-view"
        className={`aspect-[4/3] w-full max-w-[min(64rem,calc((100vh_-_8rem)*4/3))] overflow-hidden rounded border bg-black ${control ? 'border-accent-400' : 'border-ink-800'}`}
      />
      <ScreenRecordings box={box} />
    </section>
  );
}
