import { useState } from 'react';
import { call, errorMessage } from '../../api/client.js';
import { useModels } from '../../api/hooks/inference.js';
import { Button } from '../../ui/Button.js';

interface Row {
  input: string;
  dims: number;
  norm: number;
  head: number[];
}

const cosine = (a: number[], b: number[]) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
};

/**
 * POST /v1/embeddings from the page: one input a line, each answered as its vector's size,
 * length and first values, and (two or more inputs) how alike they are (cosine similarity).
 */
export function EmbeddingsPanel() {
  const models = useModels();
  const embedders = models.data?.filter((m) => m.capabilities?.includes('embedding')) ?? [];
  const [model, setModel] = useState('');
  const [text, setText] = useState('a cat sat on the mat\na cat sat on a mat\nquarterly revenue grew');
  const [rows, setRows] = useState<Row[] | null>(null);
  const [sims, setSims] = useState<number[][]>([]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const chosen = model || embedders[0]?.id || '';
  const inputs = text.split('\n').filter((l) => l.trim());

  async function embed() {
    setBusy(true);
    setError('');
    try {
      const res = await call('POST /v1/embeddings', { body: { model: chosen, input: inputs } });
      const vectors = res.data.map((d) => d.embedding as number[]);
      setRows(
        vectors.map((v, i) => ({
          input: inputs[i]!,
          dims: v.length,
          norm: Math.sqrt(v.reduce((s, x) => s + x * x, 0)),
          head: v.slice(0, 6),
        })),
      );
      setSims(vectors.map((a) => vectors.map((b) => cosine(a, b))));
    } catch (e) {
      setRows(null);
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel space-y-2 p-4" data-testid="embeddings-panel">
      <h2 className="font-semibold">Embeddings</h2>
      <div className="flex flex-wrap items-end gap-2">
        <label className="block min-w-0 flex-1">
          <span className="label">Model (models that embed)</span>
          <select className="input font-mono" value={chosen} onChange={(e) => setModel(e.target.value)} data-testid="embed-model">
            {embedders.length === 0 && <option value="">{models.isPending ? 'Loading models…' : 'No model here embeds'}</option>}
            {embedders.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
        </label>
        <Button variant="primary" busy={busy} needsService disabled={!chosen || inputs.length === 0} onClick={() => void embed()} data-testid="embed-send">
          Embed
        </Button>
      </div>
      <label className="block">
        <span className="label">Inputs, one a line</span>
        <textarea className="input h-20 resize-y font-mono text-xs" value={text} onChange={(e) => setText(e.target.value)} data-testid="embed-input" />
      </label>
      {error && (
        <p className="text-xs text-rose-300" data-testid="embed-error">
          {error}
        </p>
      )}
      {rows && (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-xs" data-testid="embed-result">
            <thead className="text-ink-400">
              <tr>
                <th className="py-1 pr-2 font-medium">Input</th>
                <th className="pr-2 font-medium">Dims</th>
                <th className="pr-2 font-medium">Norm</th>
                <th className="pr-2 font-medium">First values</th>
                {rows.length > 1 &&
                  rows.map((_, j) => (
                    <th key={j} className="pr-2 font-medium">
                      cos #{j + 1}
                    </th>
                  ))}
              </tr>
            </thead>
            <tbody className="font-mono">
              {rows.map((r, i) => (
                <tr key={i} data-testid="embed-row" className="border-t border-ink-800">
                  <td className="max-w-48 truncate py-1 pr-2 font-sans" title={r.input}>
                    #{i + 1} {r.input}
                  </td>
                  <td className="pr-2" data-testid="embed-dims">
                    {r.dims}
                  </td>
                  <td className="pr-2">{r.norm.toFixed(3)}</td>
                  <td className="pr-2 whitespace-nowrap">[{r.head.map((x) => x.toFixed(3)).join(', ')}, …]</td>
                  {rows.length > 1 &&
                    sims[i]!.map((s, j) => (
                      <td key={j} className="pr-2" data-testid={`embed-cos-${i}-${j}`}>
                        {s.toFixed(3)}
                      </td>
                    ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
