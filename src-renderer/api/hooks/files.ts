import { useQuery } from '@tanstack/react-query';
import { call } from '../client.js';

/** A box's directory (absolute path); listing a sleeping box wakes it. */
export const useBoxDirectory = (boxId: string, path: string) =>
  useQuery({
    queryKey: ['boxes', boxId, 'dir', path],
    queryFn: () => call('GET /v1/boxes/:box_id/directories', { params: { box_id: boxId }, query: { path } }),
    enabled: Boolean(boxId),
  });

export const boxFileUrl = (boxId: string, path: string) => `/v1/boxes/${boxId}/files?path=${encodeURIComponent(path)}`;
