import type { BoxTokenUsage } from '@box/contract/usage';
import { formatUsd } from '../../ui/format.js';

/** Inference used from inside boxes (through their egress proxy), per box, with each box's budget. */
export function BoxTokensTable({ rows }: { rows: BoxTokenUsage[] }) {
  if (!rows.length) return null;
  return (
    <div className="mt-4" data-testid="box-tokens">
      <span className="label">Inference from boxes</span>
      <table className="w-full text-xs">
        <thead className="text-ink-400">
          <tr>
            <th className="text-left font-normal">box</th>
            <th className="text-right font-normal">requests</th>
            <th className="text-right font-normal">tokens in / out</th>
            <th className="text-right font-normal">budget</th>
            <th className="text-right font-normal">spend</th>
          </tr>
        </thead>
        <tbody className="font-mono">
          {rows.map((b) => (
            <tr key={b.box_id} data-testid="box-tokens-row">
              <td>{b.name ?? b.box_id}</td>
              <td className="text-right">{b.requests}</td>
              <td className="text-right">
                {b.input_tokens} / {b.output_tokens}
              </td>
              <td className="text-right">{b.inference_budget_tokens === null ? 'unlimited' : b.inference_budget_tokens}</td>
              <td className="text-right">{formatUsd(b.usd_nanos)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
