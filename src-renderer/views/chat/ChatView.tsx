import { useEffect, useMemo, useRef, useState } from 'react';
import { apiFetch, errorMessage } from '../../api/client.js';
import { useEngines, useModels } from '../../api/hooks/inference.js';
import { Button } from '../../ui/Button.js';
import { ErrorNotice, PageHeader } from '../../ui/states.js';
import { readStream } from '../playground/stream-read.js';
import { applyEvent, asCurl, chatRequest, type ChatOptions, type Turn } from './chat-request.js';
import { TurnView } from './TurnView.js';

const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const engineOf = (modelId: string) => modelId.split('/')[0] ?? '';

const readDataUrl = (f: File) =>
  new Promise<string>((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error ?? new Error(`could not read ${f.name}`));
    r.readAsDataURL(f);
  });

/**
 * A chat with any model behind the gateway, as LM Studio's: the engine and model at the
 * top, the conversation streamed token by token, tool calls shown as they happen (a hosted
 * code interpreter's code and output inline), images attached to a message, and the exact
 * API request beside it.
 */
export function ChatView() {
  const engines = useEngines();
  const models = useModels();
  const [engine, setEngine] = useState('');
  const [opts, setOpts] = useState<ChatOptions>({ model: '', codeInterpreter: false, functionTool: false, maxTokens: '' });
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [images, setImages] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [showApi, setShowApi] = useState(false);
  const [note, setNote] = useState('');
  const abort = useRef<AbortController | null>(null);
  const end = useRef<HTMLDivElement>(null);
  const file = useRef<HTMLInputElement>(null);

  const engineNames = useMemo(() => {
    const names = new Set((engines.data ?? []).map((e) => e.name));
    for (const m of models.data ?? []) names.add(engineOf(m.id));
    return [...names];
  }, [engines.data, models.data]);
  const engineModels = (models.data ?? []).filter((m) => !engine || engineOf(m.id) === engine);
  // Preselect: the first engine that has a model, and its first model.
  useEffect(() => {
    if (opts.model || !models.data?.length) return;
    const first = models.data[0]!;
    setEngine(engineOf(first.id));
    setOpts((o) => ({ ...o, model: first.id }));
  }, [models.data, opts.model]);

  const pending: Turn[] = draft.trim() || images.length ? [...turns, { role: 'user', text: draft, images }] : turns;
  const preview = chatRequest(pending, opts);
  const lastCall = [...turns].reverse().find((t) => t.role === 'assistant');
  const openCalls =
    lastCall?.role === 'assistant' && lastCall.status === 'completed'
      ? lastCall.items.filter((it) => it.type === 'function_call' && !turns.some((t) => t.role === 'tool' && t.callId === it.call_id))
      : [];

  async function send(history: Turn[]) {
    const req = chatRequest(history, opts);
    const t0 = performance.now();
    const controller = new AbortController();
    abort.current = controller;
    setBusy(true);
    setTurns([...history, { role: 'assistant', items: [], status: 'streaming' }]);
    const patch = (f: (t: Extract<Turn, { role: 'assistant' }>) => Partial<Extract<Turn, { role: 'assistant' }>>) =>
      setTurns((cur) => {
        const last = cur[cur.length - 1];
        if (last?.role !== 'assistant') return cur;
        return [...cur.slice(0, -1), { ...last, ...f(last) }];
      });
    setTimeout(() => end.current?.scrollIntoView({ block: 'end' }), 0);
    try {
      const res = await apiFetch(req.path, { method: 'POST', json: req.body, signal: controller.signal });
      if (!res.body) throw new Error('The answer had no body.');
      const final = await readStream(
        'responses',
        res.body,
        () => {},
        (e) => {
          if (e.data && typeof e.data === 'object') patch((t) => ({ items: applyEvent(t.items, e.data as Record<string, any>) }));
        },
      );
      const status = (final as { status?: string }).status === 'incomplete' ? 'incomplete' : 'completed';
      patch(() => ({ status, ms: Math.round(performance.now() - t0) }));
    } catch (e) {
      patch(() => ({ status: 'failed', error: controller.signal.aborted ? 'Stopped.' : errorMessage(e) }));
    } finally {
      abort.current = null;
      setBusy(false);
      setTimeout(() => end.current?.scrollIntoView({ block: 'end' }), 0);
    }
  }

  function submit() {
    if (busy) return;
    if (!draft.trim() && !images.length) return setNote('Write a message or attach an image first: an empty message is not sent.');
    if (!opts.model) return setNote('Pick a model first.');
    setNote('');
    const history: Turn[] = [...turns, { role: 'user', text: draft.trim(), images }];
    setDraft('');
    setImages([]);
    void send(history);
  }

  async function attach(files: FileList | File[]) {
    for (const f of [...files]) {
      if (!f.type.startsWith('image/')) {
        setNote(`${f.name} is not an image (${f.type || 'unknown type'}).`);
        continue;
      }
      if (f.size > MAX_IMAGE_BYTES) {
        setNote(`${f.name} is ${Math.round(f.size / 1024 / 1024)} MB; images up to 8 MB are sent.`);
        continue;
      }
      const url = await readDataUrl(f);
      setImages((cur) => [...cur, url]);
    }
  }

  const answerCall = (callId: string, name: string, output: string) => {
    const history: Turn[] = [...turns, { role: 'tool', callId, name, output }];
    const stillOpen = openCalls.filter((c) => c.call_id !== callId && !history.some((t) => t.role === 'tool' && t.callId === c.call_id));
    if (stillOpen.length) setTurns(history);
    else void send(history);
  };

  return (
    <div data-testid="view-chat" className="flex min-h-[calc(100vh-3rem)] flex-col">
      <PageHeader title="Chat" subtitle="Talk to any model behind the gateway: answers stream in, tool calls and a hosted code interpreter show inline." />
      <div className="panel mb-3 flex flex-wrap items-end gap-2 p-3">
        <label className="block">
          <span className="label">Engine</span>
          <select
            className="input font-mono"
            value={engine}
            data-testid="chat-engine"
            onChange={(e) => {
              setEngine(e.target.value);
              const first = (models.data ?? []).find((m) => engineOf(m.id) === e.target.value);
              setOpts((o) => ({ ...o, model: first?.id ?? '' }));
            }}
          >
            {engineNames.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label className="block min-w-0 flex-1">
          <span className="label">Model</span>
          <select
            className="input w-full font-mono"
            value={opts.model}
            onChange={(e) => setOpts((o) => ({ ...o, model: e.target.value }))}
            data-testid="chat-model"
          >
            {engineModels.length === 0 && <option value="">{models.isPending ? 'Loading models…' : 'This engine lists no models'}</option>}
            {engineModels.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
        </label>
        <Button small onClick={() => setShowApi((v) => !v)} aria-expanded={showApi} data-testid="chat-view-api">
          {showApi ? 'Hide API request' : 'View as API request'}
        </Button>
        <Button small variant="ghost" disabled={busy || turns.length === 0} onClick={() => setTurns([])} data-testid="chat-new">
          New chat
        </Button>
        <div className="flex w-full flex-wrap gap-4 text-xs text-ink-300">
          <label className="flex items-center gap-1.5">
            <input
              type="checkbox"
              checked={opts.codeInterpreter}
              onChange={(e) => setOpts((o) => ({ ...o, codeInterpreter: e.target.checked }))}
              data-testid="chat-code-interpreter"
            />
            Code interpreter (hosted: runs in a box)
          </label>
          <label className="flex items-center gap-1.5">
            <input
              type="checkbox"
              checked={opts.functionTool}
              onChange={(e) => setOpts((o) => ({ ...o, functionTool: e.target.checked }))}
              data-testid="chat-function-tool"
            />
            Function tool <code>get_weather</code> (you answer it)
          </label>
          <label className="flex items-center gap-1.5">
            Max tokens
            <input
              className="input w-20 py-0.5 font-mono text-xs"
              inputMode="numeric"
              placeholder="default"
              value={opts.maxTokens}
              onChange={(e) => setOpts((o) => ({ ...o, maxTokens: e.target.value }))}
            />
          </label>
        </div>
      </div>
      {showApi && (
        <section className="panel mb-3 p-3" data-testid="chat-api-request">
          <p className="mb-1 text-xs text-ink-400">The request the next message sends (the whole conversation goes as input; streamed):</p>
          <pre className="max-h-72 overflow-auto rounded bg-ink-950 p-3 font-mono text-xs break-all whitespace-pre-wrap text-ink-300">
            {`POST ${preview.path}\n\n${JSON.stringify(preview.body, (k, v: unknown) => (typeof v === 'string' && v.startsWith('data:') && v.length > 120 ? `${v.slice(0, 60)}… (${v.length} chars)` : v), 2)}`}
          </pre>
          <details className="mt-2 text-xs">
            <summary className="cursor-pointer text-ink-300">As curl</summary>
            <pre className="mt-1 overflow-auto rounded bg-ink-950 p-2 font-mono break-all whitespace-pre-wrap text-ink-300">
              {asCurl(window.location.origin, preview)}
            </pre>
          </details>
        </section>
      )}
      <div className="flex-1 space-y-3" data-testid="chat-log">
        {turns.length === 0 && (
          <p className="text-sm text-ink-400">
            Say something. With <code>box/echo</code> (the built-in test model) the answer repeats your message and describes attached images; with the code
            interpreter on, it runs your message as Python in a box.
          </p>
        )}
        {turns.map((t, i) => (
          <TurnView key={i} turn={t} onAnswer={answerCall} answered={(id) => turns.some((x) => x.role === 'tool' && x.callId === id)} />
        ))}
        <div ref={end} />
      </div>
      <div
        className="panel sticky bottom-0 mt-3 space-y-2 p-3"
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          void attach(e.dataTransfer.files);
        }}
      >
        {images.length > 0 && (
          <div className="flex flex-wrap gap-2" data-testid="chat-attachments">
            {images.map((url, i) => (
              <div key={i} className="relative">
                <img src={url} alt={`attachment ${i + 1}`} className="h-16 w-16 rounded border border-ink-700 object-cover" data-testid="chat-attachment" />
                <button
                  type="button"
                  className="absolute -top-2 -right-2 rounded-full bg-ink-800 px-1.5 text-xs"
                  aria-label={`Remove attachment ${i + 1}`}
                  onClick={() => setImages((cur) => cur.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </div>
            ))}
          </div>
        )}
        <textarea
          className="input min-h-20 w-full resize-y"
          placeholder="Message — Enter sends, Shift+Enter adds a line; paste or drop an image to attach it"
          value={draft}
          data-testid="chat-input"
          aria-label="Message"
          onChange={(e) => setDraft(e.target.value)}
          onPaste={(e) => {
            const files = [...e.clipboardData.files].filter((f) => f.type.startsWith('image/'));
            if (files.length) {
              e.preventDefault();
              void attach(files);
            }
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              submit();
            }
          }}
        />
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <input
            ref={file}
            type="file"
            accept="image/*"
            multiple
            hidden
            data-testid="chat-file"
            onChange={(e) => {
              if (e.target.files) void attach(e.target.files);
              e.target.value = '';
            }}
          />
          <Button small onClick={() => file.current?.click()} data-testid="chat-attach">
            Attach image
          </Button>
          {busy ? (
            <Button small variant="danger" onClick={() => abort.current?.abort()} data-testid="chat-stop">
              Stop
            </Button>
          ) : (
            <Button small variant="primary" needsService disabled={!opts.model} onClick={submit} data-testid="chat-send">
              Send
            </Button>
          )}
          {note && (
            <span className="text-amber-300" data-testid="chat-note">
              {note}
            </span>
          )}
          {models.error && <ErrorNotice error={models.error} compact />}
        </div>
      </div>
    </div>
  );
}
