import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DirectoryListing, Volume } from '../../../src-server/contract/volumes.js';
import { api, type Page } from '../client.js';

type VolumeList = Page<Volume> | { data: Volume[] };

export const useVolumes = () =>
  useQuery({ queryKey: ['volumes'], queryFn: async () => (await api<VolumeList>('/v1/box-volumes', { query: { limit: 100 } })).data });

export const useVolumeDirectory = (volumeId: string, path: string) =>
  useQuery({
    queryKey: ['volumes', volumeId, 'dir', path],
    queryFn: () => api<DirectoryListing>(`/v1/box-volumes/${volumeId}/directories`, { query: { path: path || undefined } }),
  });

export function useCreateVolume() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      api<Volume>('/v1/box-volumes', { method: 'POST', json: { name }, headers: { 'Idempotency-Key': crypto.randomUUID() } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['volumes'] }),
  });
}

export function useDeleteVolume() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<Volume>(`/v1/box-volumes/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['volumes'] }),
  });
}

export const volumeFileUrl = (volumeId: string, path: string) => `/v1/box-volumes/${volumeId}/files?path=${encodeURIComponent(path)}`;
