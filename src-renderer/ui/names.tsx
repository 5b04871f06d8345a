import { useBox } from '../api/hooks/boxes.js';
import { useQuery } from '@tanstack/react-query';
import { call } from '../api/client.js';
import { href } from '../app/router.js';
import { CopyButton } from './CopyButton.js';
import { shortId } from './format.js';

/**
 * Names where the API has them, ids one click away: the name links to the thing, the id is
 * its tooltip and a Copy button copies it.
 */
export function BoxName({ id, name, tab }: { id: string; name?: string; tab?: string }) {
  const box = useBox(name ? undefined : id);
  const shown = name ?? box.data?.name;
  return (
    <span className="inline-flex items-center gap-1" data-testid="box-name-ref" data-id={id}>
      <a className="hover:underline" href={href(tab ? ['boxes', id, tab] : ['boxes', id])} title={id}>
        {shown ?? shortId(id)}
      </a>
      {box.data?.status === 'terminated' && <span className="text-[10px] text-ink-500">(terminated)</span>}
      <CopyButton text={id} label="id" testId="copy-id" />
    </span>
  );
}

export function PolicyName({ id }: { id: string }) {
  const policy = useQuery({ queryKey: ['policies', id], queryFn: () => call('GET /v1/http-policies/:id', { params: { id } }) });
  const p = policy.data;
  return (
    <span className="inline-flex items-center gap-1" data-testid="policy-name-ref" data-id={id}>
      <a className="hover:underline" href={href(['policies', id])} title={id}>
        {p?.name ?? shortId(id)}
      </a>
      <CopyButton text={id} label="id" testId="copy-id" />
    </span>
  );
}
