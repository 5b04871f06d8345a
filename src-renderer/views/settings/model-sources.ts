import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api/client.js';
import type { ModelPull } from '@box/contract/inference';

export type { ModelPull };

const running = (p: ModelPull) => p.state === 'downloading' || p.state === 'verifying';

export const useCatalog = () => useQuery({ queryKey: ['catalog'], queryFn: async () => (await call('GET /v1/local-models/catalog')).data, retry: false });

/** Pulls, polled every second while one is running. */
export const usePulls = () =>
  useQuery({
    queryKey: ['pulls'],
    queryFn: async () => (await call('GET /v1/local-models/pulls')).data,
    refetchInterval: (q) => (q.state.data?.some(running) ? 1000 : false),
    retry: false,
  });

export const useDiscovery = () => useQuery({ queryKey: ['discovery'], queryFn: () => call('GET /v1/engines/discovery'), retry: false });

export function useModelSourceActions() {
  const qc = useQueryClient();
  const refresh = () => Promise.all(['pulls', 'engines', 'models', 'discovery'].map((k) => qc.invalidateQueries({ queryKey: [k] })));
  return {
    pull: useMutation({ mutationFn: (catalog_id: string) => call('POST /v1/local-models/pull', { body: { catalog_id } }), onSuccess: refresh }),
    cancel: useMutation({ mutationFn: (id: string) => call('POST /v1/local-models/pulls/:pull_id/cancel', { params: { pull_id: id } }), onSuccess: refresh }),
    setDiscovery: useMutation({ mutationFn: (enabled: boolean) => call('PUT /v1/engines/discovery', { body: { enabled } }), onSuccess: refresh }),
    scan: useMutation({ mutationFn: () => call('POST /v1/engines/discovery/scan'), onSuccess: refresh }),
  };
}

export const isRunning = running;
