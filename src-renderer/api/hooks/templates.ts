import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../client.js';

/** Polls faster while a template is being built, so its progress moves. */
export const useTemplates = () =>
  useQuery({
    queryKey: ['templates'],
    queryFn: async () => (await call('GET /v1/templates')).data,
    refetchInterval: (q) => (q.state.data?.some((t) => t.state === 'building') ? 1000 : 10_000),
  });

export function useDeleteTemplate() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /v1/templates/:template_id', { params: { template_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['templates'] }),
  });
}
