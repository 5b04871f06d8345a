import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { apiUrl } from '../../api/client.js';
import { appendKept } from './console-text.js';

/**
 * A box's serial console (kernel, init and getty output), live: a server-sent stream whose
 * first event is the last 64 KiB, then each piece as the VM writes it. Scrolls with new
 * output unless the reader has scrolled up; "Follow" brings it back to the end.
 */
export function ConsolePanel({ boxId }: { boxId: string }) {
  const [text, setText] = useState('');
  const [state, setState] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  const [truncated, setTruncated] = useState(false);
  const [follow, setFollow] = useState(true);
  const pre = useRef<HTMLPreElement>(null);

  useEffect(() => {
    setText('');
    setState('connecting');
    const es = new EventSource(apiUrl(`/v1/boxes/${boxId}/console`, { stream: 1 }));
    let first = true;
    es.onopen = () => {
      first = true; // a reconnect sends the tail again as its first chunk: replace, do not append
      setState('live');
    };
    es.onerror = () => setState('reconnecting');
    es.addEventListener('chunk', (ev) => {
      const c = JSON.parse((ev as MessageEvent<string>).data) as { data: string; truncated?: boolean };
      const replace = first;
      if (replace) setTruncated(Boolean(c.truncated));
      setText((cur) => appendKept(replace ? '' : cur, c.data));
      first = false;
    });
    es.addEventListener('reset', () => setText(''));
    return () => es.close();
  }, [boxId]);

  useLayoutEffect(() => {
    if (follow && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [text, follow]);

  return (
    <section className="panel overflow-hidden" data-testid="console">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-ink-800 px-3 py-2 text-xs">
        <span className="text-ink-400">
          Serial console (ttyS0): what the kernel, init and the login prompt print.{truncated && ' Showing the last 64 KiB.'}
        </span>
        <span className="flex items-center gap-3">
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} data-testid="console-follow" />
            Follow
          </label>
          <span data-testid="console-state" className={state === 'live' ? 'text-emerald-300' : 'text-amber-300'}>
            {state === 'live' ? '● live' : state === 'connecting' ? 'connecting…' : 'reconnecting…'}
          </span>
        </span>
      </div>
      <pre
        ref={pre}
        data-testid="console-text"
        className="h-[28rem] overflow-auto whitespace-pre-wrap break-all bg-ink-950 p-3 font-mono text-[12px] leading-snug text-ink-200"
        onScroll={(e) => {
          const el = e.currentTarget;
          const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
          if (atEnd !== follow) setFollow(atEnd);
        }}
      >
        {text || (state === 'live' ? 'The console is empty: the VM has not written to it yet.' : '')}
      </pre>
    </section>
  );
}
