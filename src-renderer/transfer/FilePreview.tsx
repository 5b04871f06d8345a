import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiFetch } from '../api/client.js';
import { Dialog } from '../ui/Dialog.js';
import { formatBytes } from '../ui/format.js';
import { ErrorNotice, Loading } from '../ui/states.js';

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|ico|svg)$/i;
/** Text shown at most (the rest: download it). */
const TEXT_LIMIT = 256 * 1024;

const previewKind = (name: string): 'image' | 'text' => (IMAGE.test(name) ? 'image' : 'text');

/**
 * A file's content in a dialog: images as images (from a blob: the download URL needs the
 * session), anything else as text when it decodes as UTF-8 (the first 256 KiB), else a note.
 */
export function FilePreview({ name, url, size, onClose }: { name: string; url: string; size: number; onClose: () => void }) {
  const kind = previewKind(name);
  const file = useQuery({
    queryKey: ['preview', url],
    queryFn: async () => {
      const res = await apiFetch(url);
      const blob = await res.blob();
      if (kind === 'image') return { image: blob };
      const bytes = new Uint8Array(await blob.slice(0, TEXT_LIMIT).arrayBuffer());
      try {
        return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), cut: blob.size > TEXT_LIMIT };
      } catch {
        return { binary: true };
      }
    },
    gcTime: 0,
  });
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    const img = file.data && 'image' in file.data ? file.data.image : undefined;
    if (!img) return;
    const u = URL.createObjectURL(img);
    setSrc(u);
    return () => URL.revokeObjectURL(u);
  }, [file.data]);
  return (
    <Dialog title={name} onClose={onClose} testId="file-preview" wide>
      <div className="mb-2 text-xs text-ink-400">{formatBytes(size)}</div>
      {file.isPending ? (
        <Loading />
      ) : file.error ? (
        <ErrorNotice error={file.error} />
      ) : 'image' in file.data ? (
        src && <img src={src} alt={name} className="max-h-[65vh] max-w-full rounded border border-ink-700" data-testid="preview-image" />
      ) : 'text' in file.data ? (
        <>
          <pre className="max-h-[65vh] overflow-auto rounded bg-ink-950 p-3 font-mono text-xs whitespace-pre-wrap" data-testid="preview-text">
            {file.data.text}
          </pre>
          {file.data.cut && <p className="mt-1 text-xs text-ink-400">The first 256 KiB; download the file for the rest.</p>}
        </>
      ) : (
        <p className="text-ink-300" data-testid="preview-binary">
          This file is not text or an image this view shows; download it instead.
        </p>
      )}
    </Dialog>
  );
}
