import { useQuery } from '@tanstack/react-query';
import { api } from '../client.js';

export interface Model {
  id: string;
  object: string;
  created: number;
  owned_by: string;
  [k: string]: unknown;
}

export const useModels = () => useQuery({ queryKey: ['models'], queryFn: async () => (await api<{ data: Model[] }>('/v1/models')).data, retry: false });

export interface Delivery {
  attempt?: number;
  round?: number;
  at?: string;
  status?: number | null;
  error?: string | null;
  [k: string]: unknown;
}

export const useDeliveries = (responseId: string | null) =>
  useQuery({
    queryKey: ['deliveries', responseId],
    queryFn: () => api<{ data: Delivery[] }>(`/v1/responses/${responseId}/deliveries`),
    enabled: Boolean(responseId),
    refetchInterval: 2000,
    retry: false,
  });
