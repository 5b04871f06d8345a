import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../client.js';

interface Model {
  id: string;
  object: string;
  created: number;
  owned_by: string;
  [k: string]: unknown;
}

export const useModels = () => useQuery({ queryKey: ['models'], queryFn: async () => (await api<{ data: Model[] }>('/v1/models')).data, retry: false });

import type { DeliveryList } from '../../../src-server/contract/inference.js';

export const useDeliveries = (responseId: string | null) =>
  useQuery({
    queryKey: ['deliveries', responseId],
    queryFn: () => api<DeliveryList>(`/v1/responses/${responseId}/deliveries`),
    enabled: Boolean(responseId),
    refetchInterval: 1500,
    retry: false,
  });

export function useRedeliver() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (responseId: string) => api<unknown>(`/v1/responses/${responseId}/deliveries/redeliver`, { method: 'POST', json: {} }),
    onSettled: (_d, _e, id) => qc.invalidateQueries({ queryKey: ['deliveries', id] }),
  });
}

interface EngineInfo {
  name: string;
  kind: 'local' | 'openai' | 'anthropic' | 'test';
  base_url: string | null;
  has_api_key: boolean;
  discovered?: boolean;
}

export const useEngines = () => useQuery({ queryKey: ['engines'], queryFn: async () => (await api<{ data: EngineInfo[] }>('/v1/engines')).data, retry: false });
