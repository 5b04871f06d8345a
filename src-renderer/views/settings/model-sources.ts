import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.js';

interface CatalogModel { id: string; name: string; description: string; parameters: string; quantization: string; size_bytes: number; licence: string; source_url: string; sha256: string | null }
export interface ModelPull { id: string; state: 'downloading' | 'verifying' | 'completed' | 'failed' | 'cancelled'; catalog_id: string | null; name: string; model_id: string | null; bytes_done: number; bytes_total: number | null; sha256: string | null; error: string | null }
interface DiscoveryState { enabled: boolean; allowed: boolean; probes: { name: string; port: number; product: string }[] }

const running = (p: ModelPull) => p.state === 'downloading' || p.state === 'verifying';

export const useCatalog = () => useQuery({ queryKey: ['catalog'], queryFn: async () => (await api<{ data: CatalogModel[] }>('/v1/local-models/catalog')).data, retry: false });

/** Pulls, polled every second while one is running. */
export const usePulls = () =>
  useQuery({
    queryKey: ['pulls'],
    queryFn: async () => (await api<{ data: ModelPull[] }>('/v1/local-models/pulls')).data,
    refetchInterval: (q) => (q.state.data?.some(running) ? 1000 : false),
    retry: false,
  });

export const useDiscovery = () => useQuery({ queryKey: ['discovery'], queryFn: () => api<DiscoveryState>('/v1/engines/discovery'), retry: false });

export function useModelSourceActions() {
  const qc = useQueryClient();
  const refresh = () => Promise.all(['pulls', 'engines', 'models', 'discovery'].map((k) => qc.invalidateQueries({ queryKey: [k] })));
  return {
    pull: useMutation({ mutationFn: (catalog_id: string) => api<ModelPull>('/v1/local-models/pull', { method: 'POST', json: { catalog_id } }), onSuccess: refresh }),
    cancel: useMutation({ mutationFn: (id: string) => api<ModelPull>(`/v1/local-models/pulls/${id}/cancel`, { method: 'POST', json: {} }), onSuccess: refresh }),
    setDiscovery: useMutation({ mutationFn: (enabled: boolean) => api<DiscoveryState>('/v1/engines/discovery', { method: 'PUT', json: { enabled } }), onSuccess: refresh }),
    scan: useMutation({ mutationFn: () => api<unknown>('/v1/engines/discovery/scan', { method: 'POST', json: {} }), onSuccess: refresh }),
  };
}

export const isRunning = running;
