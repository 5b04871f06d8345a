import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Image } from '../../../src-server/contract/images.js';
import { api } from '../client.js';

export const useImages = () => useQuery({ queryKey: ['images'], queryFn: async () => (await api<{ data: Image[] }>('/v1/images')).data });

export function useDeleteImage() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<Image>(`/v1/images/${encodeURIComponent(name)}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['images'] }),
  });
}
