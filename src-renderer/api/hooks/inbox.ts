import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InboxDelivery } from '@box/contract/inbox';
import { ApiError, call } from '../client.js';

export type { InboxDelivery };

/**
 * The playground's webhook inbox: the user's own one (POST /v1/inbox/mine), the same on
 * every visit, in every window and after a restart (issue 29: a new one was made per visit).
 */
export const useInbox = () =>
  useQuery({
    queryKey: ['inbox'],
    staleTime: Infinity,
    queryFn: () => call('POST /v1/inbox/mine'),
  });

/** Every inbox of the organization (earlier ones keep their deliveries), newest first. */
export const useInboxes = () =>
  useQuery({
    queryKey: ['inboxes'],
    queryFn: async () => (await call('GET /v1/inboxes')).data.slice().reverse(),
    refetchInterval: 5000,
  });

export const useInboxDeliveries = (inboxId: string | undefined) =>
  useQuery({
    queryKey: ['inbox', inboxId, 'deliveries'],
    queryFn: () => call('GET /v1/inbox', { query: { inbox_id: inboxId, limit: 50 } }),
    enabled: Boolean(inboxId),
    refetchInterval: 1500,
    retry: (n, e) => !(e instanceof ApiError && e.status === 404) && n < 2,
  });

export function useSetInboxStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: string; status: number }) =>
      call('PATCH /v1/inbox/:inbox_id', { params: { inbox_id: id }, body: { respond_status: status } }),
    onSuccess: (inbox) => {
      if ((qc.getQueryData(['inbox']) as { inbox_id?: string } | undefined)?.inbox_id === inbox.inbox_id) qc.setQueryData(['inbox'], inbox);
      void qc.invalidateQueries({ queryKey: ['inboxes'] });
    },
  });
}
