import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Template, TemplateList } from '../../../src-server/contract/templates.js';
import { api } from '../client.js';

/** Polls faster while a template is being built, so its progress moves. */
export const useTemplates = () =>
  useQuery({
    queryKey: ['templates'],
    queryFn: async () => (await api<TemplateList>('/v1/templates')).data,
    refetchInterval: (q) => (q.state.data?.some((t) => t.state === 'building') ? 1000 : 10_000),
  });

export function useDeleteTemplate() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<Template>(`/v1/templates/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['templates'] }),
  });
}
