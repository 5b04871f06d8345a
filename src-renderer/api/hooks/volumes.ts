import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../client.js';

export const useVolumes = () => useQuery({ queryKey: ['volumes'], queryFn: async () => (await call('GET /v1/box-volumes', { query: { limit: 100 } })).data });

export const useVolumeDirectory = (volumeId: string, path: string) =>
  useQuery({
    queryKey: ['volumes', volumeId, 'dir', path],
    queryFn: () => call('GET /v1/box-volumes/:volume_id/directories', { params: { volume_id: volumeId }, query: { path: path || undefined } }),
  });

export function useCreateVolume() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call('POST /v1/box-volumes', { body: { name }, headers: { 'Idempotency-Key': crypto.randomUUID() } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['volumes'] }),
  });
}

export function useDeleteVolume() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /v1/box-volumes/:volume_id', { params: { volume_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['volumes'] }),
  });
}

export const volumeFileUrl = (volumeId: string, path: string) => `/v1/box-volumes/${volumeId}/files?path=${encodeURIComponent(path)}`;
