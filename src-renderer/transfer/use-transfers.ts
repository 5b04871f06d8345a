import { useCallback, useRef, useState } from 'react';
import { errorMessage } from '../api/client.js';
import { uploadFile, type UploadHandle } from './upload.js';

type TransferStatus = 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled';

export interface Transfer {
  id: string;
  name: string;
  target: string;
  loaded: number;
  total: number;
  status: TransferStatus;
  error?: string;
}

const CONCURRENCY = 2;

/**
 * An upload queue: at most CONCURRENCY uploads at once, per-file progress, cancel of a
 * queued or running upload. `onDone` runs after each successful file (refresh listings).
 */
export function useTransfers(onDone: () => void) {
  const [items, setItems] = useState<Transfer[]>([]);
  const jobs = useRef(new Map<string, { url: string; file: Blob; handle?: UploadHandle }>());
  const order = useRef<string[]>([]);
  const running = useRef(0);
  const doneRef = useRef(onDone);
  doneRef.current = onDone;

  const patch = useCallback((id: string, p: Partial<Transfer>) => setItems((xs) => xs.map((x) => (x.id === id ? { ...x, ...p } : x))), []);

  const pump = useCallback(() => {
    while (running.current < CONCURRENCY && order.current.length > 0) {
      const id = order.current.shift()!;
      const job = jobs.current.get(id);
      if (!job) continue;
      running.current++;
      patch(id, { status: 'uploading' });
      job.handle = uploadFile(job.url, job.file, (loaded, total) => patch(id, { loaded, total }));
      job.handle.promise
        .then(() => {
          patch(id, { status: 'done' });
          doneRef.current();
        })
        .catch((e: unknown) => {
          const cancelled = e instanceof DOMException && e.name === 'AbortError';
          patch(id, { status: cancelled ? 'cancelled' : 'failed', error: cancelled ? undefined : errorMessage(e) });
        })
        .finally(() => {
          jobs.current.delete(id);
          running.current--;
          pump();
        });
    }
  }, [patch]);

  const enqueue = useCallback(
    (files: Array<{ file: Blob; name: string; target: string; url: string }>) => {
      const added = files.map((f) => ({ id: crypto.randomUUID(), name: f.name, target: f.target, loaded: 0, total: f.file.size, status: 'queued' as const }));
      files.forEach((f, i) => {
        jobs.current.set(added[i].id, { url: f.url, file: f.file });
        order.current.push(added[i].id);
      });
      setItems((xs) => [...added, ...xs].slice(0, 200));
      pump();
    },
    [pump],
  );

  const cancel = useCallback(
    (id: string) => {
      const job = jobs.current.get(id);
      if (job?.handle) job.handle.cancel();
      else if (job) {
        jobs.current.delete(id);
        order.current = order.current.filter((x) => x !== id);
        patch(id, { status: 'cancelled' });
      }
    },
    [patch],
  );

  const clearFinished = useCallback(() => setItems((xs) => xs.filter((x) => x.status === 'queued' || x.status === 'uploading')), []);

  return { items, enqueue, cancel, clearFinished };
}
