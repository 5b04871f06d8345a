import { useEffect } from 'react';
import { useModels } from '../../api/hooks/inference.js';
import { href } from '../../app/router.js';
import { ErrorNotice } from '../../ui/states.js';
import type { PlaygroundInput, Style } from './build-request.js';

const STYLES: Array<{ id: Style; label: string }> = [
  { id: 'responses', label: 'Responses' },
  { id: 'chat', label: 'Chat' },
  { id: 'messages', label: 'Messages' },
];

export function RequestForm({ input, set }: { input: PlaygroundInput; set: (p: Partial<PlaygroundInput>) => void }) {
  const models = useModels();
  const first = models.data?.[0]?.id;
  // A fresh install lists at least the built-in test model: preselect the first model so the first send answers.
  useEffect(() => {
    if (!input.model && first) set({ model: first });
  }, [input.model, first, set]);
  const onlyTest = models.data !== undefined && models.data.every((m) => m.owned_by === 'box');
  return (
    <div className="space-y-3">
      <div role="tablist" aria-label="API style" className="flex rounded-md bg-ink-950 p-0.5">
        {STYLES.map((s) => (
          <button
            key={s.id}
            type="button"
            role="tab"
            aria-selected={input.style === s.id}
            data-testid={`style-${s.id}`}
            onClick={() => set({ style: s.id })}
            className={`flex-1 rounded px-2 py-1 text-xs font-medium ${input.style === s.id ? 'bg-ink-700 text-ink-100' : 'text-ink-400 hover:text-ink-100'}`}
          >
            {s.label}
          </button>
        ))}
      </div>
      <label className="block">
        <span className="label">Model</span>
        <select className="input font-mono" value={input.model} onChange={(e) => set({ model: e.target.value })} data-testid="model-select">
          <option value="">{models.isPending ? 'Loading models…' : models.data?.length ? 'Choose a model' : 'No models: add one in Settings'}</option>
          {models.data?.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
        </select>
        {models.error && <ErrorNotice error={models.error} compact />}
        {onlyTest && (
          <div className="mt-2 rounded border border-amber-500/30 bg-amber-500/5 p-2 text-xs text-ink-300" data-testid="model-guide">
            <p className="mb-1">
              Only <code>box/echo</code> is available: a built-in test model that repeats your input (structured output, token caps, streaming, webhooks and
              tool calls all work: offered tools, it calls the first one, then answers with the tool result). It is not a language model.
            </p>
            <p>
              For real answers:{' '}
              <a className="text-accent-400 hover:underline" href={href(['settings', 'models'])} data-testid="get-model">
                download a small model, run Ollama / LM Studio / llama.cpp / vLLM, or connect a hosted API
              </a>
              .
            </p>
          </div>
        )}
      </label>
      <label className="block">
        <span className="label">Prompt</span>
        <textarea className="input h-28 resize-y" value={input.prompt} onChange={(e) => set({ prompt: e.target.value })} data-testid="prompt" />
      </label>
      <div className="grid grid-cols-3 gap-2">
        <NumberField label="Temp." value={input.temperature} onChange={(v) => set({ temperature: v })} />
        <NumberField label="Top p" value={input.topP} onChange={(v) => set({ topP: v })} />
        <NumberField label="Max tok." value={input.maxTokens} onChange={(v) => set({ maxTokens: v })} />
      </div>
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={input.schemaOn} onChange={(e) => set({ schemaOn: e.target.checked })} data-testid="schema-on" />
        Structured output (JSON schema)
      </label>
      {input.schemaOn && (
        <div className="space-y-2">
          {input.style !== 'messages' && (
            <input className="input font-mono" placeholder="schema name" value={input.schemaName} onChange={(e) => set({ schemaName: e.target.value })} />
          )}
          <textarea
            className="input h-32 resize-y font-mono text-xs"
            value={input.schemaText}
            onChange={(e) => set({ schemaText: e.target.value })}
            data-testid="schema-text"
            spellCheck={false}
          />
        </div>
      )}
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={input.stream ?? false} onChange={(e) => set({ stream: e.target.checked })} data-testid="stream-on" />
        Stream the answer as it arrives
      </label>
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={input.toolsOn ?? false} onChange={(e) => set({ toolsOn: e.target.checked })} data-testid="tools-on" />
        Offer tools (function calling)
      </label>
      {input.toolsOn && (
        <textarea
          className="input h-32 resize-y font-mono text-xs"
          value={input.toolsText}
          onChange={(e) => set({ toolsText: e.target.value })}
          data-testid="tools-text"
          spellCheck={false}
          aria-label="tools, a JSON array of {name, description, parameters}"
        />
      )}
      <label className={`flex items-center gap-2 ${input.style !== 'responses' ? 'opacity-40' : ''}`}>
        <input
          type="checkbox"
          disabled={input.style !== 'responses'}
          checked={input.background && input.style === 'responses'}
          onChange={(e) => set({ background: e.target.checked })}
          data-testid="background"
        />
        Background (answers 202 queued; the webhook reports completion)
      </label>
    </div>
  );
}

function NumberField({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  return (
    <label className="block">
      <span className="label">{label}</span>
      <input className="input font-mono" inputMode="decimal" value={value} onChange={(e) => onChange(e.target.value)} placeholder="default" />
    </label>
  );
}
