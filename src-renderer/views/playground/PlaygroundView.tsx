import { useEffect, useState } from 'react';
import { ApiError, apiFetch, call, errorMessage } from '../../api/client.js';
import { useInbox } from '../../api/hooks/inbox.js';
import { Button } from '../../ui/Button.js';
import { ErrorNotice, PageHeader } from '../../ui/states.js';
import { AttemptsPanel } from './AttemptsPanel.js';
import { buildRequest, outputText, type PlaygroundInput } from './build-request.js';
import { InboxPanel } from './InboxPanel.js';
import { RequestForm } from './RequestForm.js';
import { readStream, type StreamEvent } from './stream-read.js';
import { StreamEventsPanel } from './StreamEventsPanel.js';
import { EmbeddingsPanel } from './EmbeddingsPanel.js';
import { followUp, toolCallsOf } from './tool-turn.js';
import { ToolTurnPanel } from './ToolTurnPanel.js';

interface Exchange {
  status: number;
  body: unknown;
  ms: number;
}

const INITIAL: PlaygroundInput = {
  style: 'responses',
  model: '',
  prompt: 'Say hello in five words.',
  temperature: '',
  topP: '',
  maxTokens: '64',
  schemaOn: false,
  schemaName: 'answer',
  schemaText: JSON.stringify({ type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'], additionalProperties: false }, null, 2),
  background: false,
  webhookUrl: null,
  webhookToken: '',
  stream: false,
  toolsOn: false,
  toolsText: JSON.stringify(
    [
      {
        name: 'get_weather',
        description: 'The weather in a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
    null,
    2,
  ),
};

export function PlaygroundView() {
  const [input, setInput] = useState(INITIAL);
  const [webhookOn, setWebhookOn] = useState(true);
  const [busy, setBusy] = useState(false);
  const [exchange, setExchange] = useState<Exchange | null>(null);
  const [sendError, setSendError] = useState<unknown>(null);
  /** What was sent last (a tool follow-up continues it), and the text of a stream as it arrives. */
  const [sent, setSent] = useState<{ path: string; body: Record<string, any> } | null>(null);
  const [streamed, setStreamed] = useState<string | null>(null);
  const [followed, setFollowed] = useState(false);
  /** A streamed answer's events as they came; the response panel shows them or the assembled JSON. */
  const [events, setEvents] = useState<StreamEvent[] | null>(null);
  const [showJson, setShowJson] = useState(false);
  const inbox = useInbox();
  const set = (p: Partial<PlaygroundInput>) => setInput((i) => ({ ...i, ...p }));
  const built = buildRequest({ ...input, webhookUrl: webhookOn ? (inbox.data?.url ?? null) : null });
  const responseId = (exchange?.body as { id?: string } | null)?.id ?? null;
  const queued = exchange && ['queued', 'in_progress'].includes((exchange.body as { status?: string }).status ?? '');

  // A background response: poll it until it finishes.
  useEffect(() => {
    if (!queued || !responseId) return;
    const t = setInterval(() => {
      call('GET /v1/responses/:response_id', { params: { response_id: responseId } })
        .then((body) => setExchange((x) => (x ? { ...x, body } : x)))
        .catch((e: unknown) => setSendError(e));
    }, 1000);
    return () => clearInterval(t);
  }, [queued, responseId]);

  const send = async (req: { path: string; body: Record<string, any> } | { error: string } = built) => {
    if ('error' in req) return;
    setBusy(true);
    setSendError(null);
    setSent(req);
    setStreamed(null);
    setEvents(null);
    const t0 = performance.now();
    try {
      const res = await apiFetch(req.path, { method: 'POST', json: req.body });
      if (req.body.stream && res.body) {
        setExchange(null);
        setStreamed('');
        setEvents([]);
        setShowJson(false);
        const body = await readStream(
          input.style,
          res.body,
          (t) => setStreamed((s) => (s ?? '') + t),
          (e) => setEvents((cur) => [...(cur ?? []), e]),
        );
        setExchange({ status: res.status, body, ms: Math.round(performance.now() - t0) });
      } else {
        setExchange({ status: res.status, body: await res.json(), ms: Math.round(performance.now() - t0) });
      }
    } catch (e) {
      setExchange(e instanceof ApiError ? { status: e.status, body: e.body, ms: Math.round(performance.now() - t0) } : null);
      setSendError(e);
    } finally {
      setBusy(false);
    }
  };

  const text = streamed !== null && (busy || !exchange) ? streamed : exchange && exchange.status < 300 ? outputText(input.style, exchange.body) : null;
  const calls = exchange && exchange.status < 300 && !busy ? toolCallsOf(input.style, exchange.body) : [];
  const sendResults = (results: Record<string, string>) => {
    if (!sent || !exchange) return;
    setFollowed(true);
    void send({ path: sent.path, body: followUp(input.style, sent.body, exchange.body as Record<string, any>, results) });
  };
  return (
    <div data-testid="view-playground">
      <PageHeader title="Inference playground" subtitle="Try the three API styles against any model, and watch completion webhooks arrive." />
      <div className="grid gap-4 lg:grid-cols-[20rem_minmax(0,1fr)] 2xl:grid-cols-[22rem_minmax(0,1fr)_24rem]">
        <div className="panel space-y-3 self-start p-4">
          <RequestForm input={input} set={set} />
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={webhookOn} onChange={(e) => setWebhookOn(e.target.checked)} data-testid="webhook-on" />
            Completion webhook to the inbox
          </label>
          {webhookOn && (
            <input
              className="input font-mono"
              placeholder="webhook_token (optional)"
              value={input.webhookToken}
              onChange={(e) => set({ webhookToken: e.target.value })}
            />
          )}
          <Button
            variant="primary"
            className="w-full justify-center"
            busy={busy}
            needsService
            disabled={!input.model || 'error' in built}
            onClick={() => {
              setFollowed(false);
              void send(built);
            }}
            data-testid="send"
          >
            Send request
          </Button>
          {'error' in built && <ErrorNotice error={new Error(built.error)} compact />}
        </div>
        <div className="min-w-0 space-y-4">
          <section className="panel p-4">
            <h2 className="mb-2 font-semibold">Request</h2>
            <pre
              className="max-h-72 overflow-auto rounded bg-ink-950 p-3 font-mono text-xs break-all whitespace-pre-wrap text-ink-300"
              data-testid="raw-request"
            >
              {followed && sent
                ? `POST ${sent.path}  (tool results follow-up)\n\n${JSON.stringify(sent.body, null, 2)}`
                : 'error' in built
                  ? built.error
                  : `POST ${built.path}\n\n${JSON.stringify(built.body, null, 2)}`}
            </pre>
          </section>
          <section className="panel p-4">
            <div className="mb-2 flex items-center justify-between">
              <h2 className="font-semibold">Response</h2>
              {exchange && (
                <span className="font-mono text-xs text-ink-400" data-testid="response-status">
                  {exchange.status} · {exchange.ms} ms
                  <ResponseState body={exchange.body} />
                </span>
              )}
            </div>
            {sendError !== null && <ErrorNotice error={sendError} />}
            {text !== null && (
              <div
                className="mb-2 rounded border border-accent-500/30 bg-accent-500/5 p-3 whitespace-pre-wrap"
                data-testid="output-text"
                data-streaming={busy && streamed !== null ? 'true' : 'false'}
              >
                {text}
              </div>
            )}
            {calls.length > 0 && <ToolTurnPanel key={(exchange?.body as { id?: string }).id} calls={calls} busy={busy} onSend={sendResults} />}
            {events !== null && (
              <div role="tablist" aria-label="Streamed answer" className="mb-2 flex gap-1 text-xs">
                <button
                  type="button"
                  role="tab"
                  aria-selected={!showJson}
                  className={`rounded px-2 py-1 ${!showJson ? 'bg-ink-700 text-ink-100' : 'text-ink-400 hover:text-ink-100'}`}
                  onClick={() => setShowJson(false)}
                  data-testid="show-events"
                >
                  Events ({events.length})
                </button>
                <button
                  type="button"
                  role="tab"
                  aria-selected={showJson}
                  className={`rounded px-2 py-1 ${showJson ? 'bg-ink-700 text-ink-100' : 'text-ink-400 hover:text-ink-100'}`}
                  onClick={() => setShowJson(true)}
                  data-testid="show-json"
                >
                  Assembled JSON
                </button>
              </div>
            )}
            {events !== null && !showJson && <StreamEventsPanel events={events} />}
            <pre
              hidden={events !== null && !showJson}
              className="max-h-96 overflow-auto rounded bg-ink-950 p-3 font-mono text-xs break-all whitespace-pre-wrap text-ink-300"
              data-testid="raw-response"
            >
              {exchange
                ? JSON.stringify(exchange.body, null, 2)
                : busy
                  ? streamed !== null
                    ? 'Streaming…'
                    : 'Waiting for the model…'
                  : 'Send a request to see the raw response.'}
            </pre>
          </section>
          {responseId && webhookOn && <AttemptsPanel responseId={responseId} />}
          <EmbeddingsPanel />
        </div>
        <div className="min-w-0 lg:col-start-2 2xl:col-start-auto">
          <InboxPanel />
        </div>
      </div>
      {sendError !== null && !(sendError instanceof ApiError) && <p className="mt-2 text-rose-300">{errorMessage(sendError)}</p>}
    </div>
  );
}

/** A background response's state as of its latest poll (the HTTP status above is the first answer's). */
function ResponseState({ body }: { body: unknown }) {
  const state = (body as { status?: string } | null)?.status;
  if (!state) return null;
  return (
    <span data-testid="response-state" data-state={state}>
      {' · '}
      {state === 'queued' || state === 'in_progress' ? `${state.replace('_', ' ')}, polling…` : `now ${state}`}
    </span>
  );
}
