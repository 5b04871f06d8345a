import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InboxDelivery } from '../../../src-server/contract/inbox.js';
import { ApiError, call } from '../client.js';

export type { InboxDelivery };

const STORAGE_KEY = 'box.playground-inbox';

/**
 * The playground's webhook inbox. Inboxes live in the service's memory, so one saved
 * from an earlier run may be gone after a restart: then a new one is made.
 */
export const useInbox = () =>
  useQuery({
    queryKey: ['inbox'],
    staleTime: Infinity,
    queryFn: async () => {
      const saved = sessionStorage.getItem(STORAGE_KEY);
      if (saved) {
        const list = await call('GET /v1/inboxes');
        const found = list.data.find((i) => i.inbox_id === saved);
        if (found) return found;
      }
      const created = await call('POST /v1/inbox', { body: {} });
      sessionStorage.setItem(STORAGE_KEY, created.inbox_id);
      return created;
    },
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
    onSuccess: (inbox) => qc.setQueryData(['inbox'], inbox),
  });
}
