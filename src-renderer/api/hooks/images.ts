import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../client.js';

export const useImages = () => useQuery({ queryKey: ['images'], queryFn: async () => (await call('GET /v1/images')).data });

export function useDeleteImage() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call('DELETE /v1/images/:name', { params: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['images'] }),
  });
}
