import { useState } from 'react';
import { Button } from '../../ui/Button.js';
import type { OutputItem, Turn } from './chat-request.js';

const messageText = (it: OutputItem) => (it.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');

/** One turn of the chat: the user's message (with its images), the assistant's items as they stream, or a tool result. */
export function TurnView({
  turn,
  onAnswer,
  answered,
}: {
  turn: Turn;
  onAnswer: (callId: string, name: string, output: string) => void;
  answered: (callId: string) => boolean;
}) {
  if (turn.role === 'user')
    return (
      <div className="ml-auto max-w-[85%] rounded-lg bg-ink-800 px-3 py-2" data-testid="chat-turn" data-role="user">
        {turn.text && <p className="whitespace-pre-wrap">{turn.text}</p>}
        {turn.images.length > 0 && (
          <div className="mt-1 flex flex-wrap gap-2">
            {turn.images.map((url, i) => (
              <img key={i} src={url} alt={`sent image ${i + 1}`} className="max-h-32 rounded border border-ink-700" data-testid="chat-sent-image" />
            ))}
          </div>
        )}
      </div>
    );
  if (turn.role === 'tool')
    return (
      <div className="max-w-[85%] rounded-lg border border-ink-700 px-3 py-2 text-xs" data-testid="chat-turn" data-role="tool">
        <span className="text-ink-400">Result of {turn.name}:</span> <span className="font-mono">{turn.output}</span>
      </div>
    );
  const streaming = turn.status === 'streaming';
  return (
    <div className="max-w-[85%] space-y-2" data-testid="chat-turn" data-role="assistant" data-status={turn.status}>
      {turn.items.map((it, i) => (
        <ItemView key={i} item={it} onAnswer={onAnswer} answered={answered} />
      ))}
      {streaming && turn.items.length === 0 && <p className="text-sm text-ink-400">Waiting for the model…</p>}
      {turn.error && (
        <p className="text-sm text-rose-300" data-testid="chat-error">
          {turn.error}
        </p>
      )}
      {!streaming && turn.ms !== undefined && (
        <p className="text-[11px] text-ink-400">
          {turn.status} · {turn.ms} ms
        </p>
      )}
    </div>
  );
}

function ItemView({
  item,
  onAnswer,
  answered,
}: {
  item: OutputItem;
  onAnswer: (callId: string, name: string, output: string) => void;
  answered: (callId: string) => boolean;
}) {
  if (item.type === 'message')
    return (
      <div className="rounded-lg border border-accent-500/30 bg-accent-500/5 px-3 py-2 whitespace-pre-wrap" data-testid="chat-answer">
        {messageText(item)}
      </div>
    );
  if (item.type === 'code_interpreter_call') return <CodeCall item={item} />;
  if (item.type === 'function_call') return <FunctionCall item={item} onAnswer={onAnswer} done={answered(item.call_id)} />;
  if (item.type === 'shell_call')
    return (
      <div className="rounded-lg border border-ink-700 bg-ink-950 px-3 py-2 font-mono text-xs" data-testid="chat-shell-call">
        $ {(item.action?.commands ?? []).join(' && ')}
      </div>
    );
  if (item.type === 'shell_call_output')
    return (
      <pre className="rounded-lg border border-ink-700 bg-ink-950 px-3 py-2 font-mono text-xs whitespace-pre-wrap" data-testid="chat-shell-output">
        {(item.output ?? []).map((o: { stdout: string; stderr: string }) => o.stdout + o.stderr).join('\n')}
      </pre>
    );
  return (
    <details className="text-xs text-ink-400">
      <summary>{item.type}</summary>
      <pre className="whitespace-pre-wrap">{JSON.stringify(item, null, 2)}</pre>
    </details>
  );
}

/** A hosted code interpreter call: the code the model wrote, then what the box printed and drew. */
function CodeCall({ item }: { item: OutputItem }) {
  const outputs = (item.outputs ?? []) as Array<{ type: 'logs'; logs: string } | { type: 'image'; url: string }>;
  return (
    <div className="overflow-hidden rounded-lg border border-ink-700" data-testid="chat-code-call" data-status={item.status}>
      <div className="flex items-center justify-between border-b border-ink-800 bg-ink-900 px-3 py-1 text-[11px] text-ink-400">
        <span>code interpreter · {item.status}</span>
        {item.container_id && <span className="font-mono">in {item.container_id}</span>}
      </div>
      <pre className="bg-ink-950 px-3 py-2 font-mono text-xs whitespace-pre-wrap" data-testid="chat-code">
        {item.code ?? ''}
      </pre>
      {outputs.length > 0 && (
        <div className="space-y-2 border-t border-ink-800 px-3 py-2" data-testid="chat-code-output">
          {outputs.map((o, i) =>
            o.type === 'logs' ? (
              <pre key={i} className="font-mono text-xs whitespace-pre-wrap text-ink-300">
                {o.logs}
              </pre>
            ) : (
              <img key={i} src={o.url} alt="code output" className="max-w-full rounded bg-white" />
            ),
          )}
        </div>
      )}
    </div>
  );
}

function FunctionCall({ item, onAnswer, done }: { item: OutputItem; onAnswer: (callId: string, name: string, output: string) => void; done: boolean }) {
  const [result, setResult] = useState('');
  return (
    <div className="rounded-lg border border-amber-500/30 bg-amber-500/5 px-3 py-2 text-xs" data-testid="chat-function-call">
      <p>
        calls <code data-testid="chat-function-name">{item.name}</code> with <code data-testid="chat-function-args">{item.arguments}</code>
      </p>
      {!done && item.status === 'completed' && (
        <div className="mt-2 flex gap-2">
          <input
            className="input flex-1 py-1 font-mono text-xs"
            placeholder="the tool's result"
            value={result}
            onChange={(e) => setResult(e.target.value)}
            data-testid="chat-function-result"
            aria-label={`Result of ${item.name}`}
          />
          <Button small variant="primary" disabled={!result.trim()} onClick={() => onAnswer(item.call_id, item.name, result)} data-testid="chat-function-send">
            Send result
          </Button>
        </div>
      )}
    </div>
  );
}
