import { useRef, useState, type ReactNode } from 'react';
import { desktop } from '../desktop.js';
import { collectDrop, type DroppedFile } from './collect-drop.js';

/**
 * A drop target over its children (files and folders), plus a hidden picker for the
 * keyboard path. Only drags that carry files light it up.
 */
export function DropZone({
  onFiles,
  children,
  testId,
  disabled,
}: {
  onFiles: (files: DroppedFile[]) => void;
  children: ReactNode;
  testId?: string;
  disabled?: boolean;
}) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const hasFiles = (e: React.DragEvent) => [...e.dataTransfer.types].includes('Files');
  return (
    <div
      data-testid={testId}
      data-drag-over={over || undefined}
      className={`relative rounded-lg transition-shadow ${over ? 'ring-2 ring-accent-400 ring-offset-2 ring-offset-ink-900' : ''}`}
      onDragEnter={(e) => {
        if (disabled || !hasFiles(e)) return;
        e.preventDefault();
        depth.current++;
        setOver(true);
      }}
      onDragOver={(e) => {
        if (disabled || !hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={() => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      }}
      onDrop={(e) => {
        if (disabled) return;
        e.preventDefault();
        depth.current = 0;
        setOver(false);
        void collectDrop(e.dataTransfer).then((files) => files.length > 0 && onFiles(files));
      }}
    >
      {children}
      {over && (
        <div className="pointer-events-none absolute inset-0 grid place-items-center rounded-lg bg-accent-500/10 text-sm font-semibold text-accent-300">
          Drop to upload here
        </div>
      )}
    </div>
  );
}

/** In the desktop app the native open dialog (through the preload bridge); in a browser, a file input. */
export function FilePickerButton({ onFiles, className = '' }: { onFiles: (files: DroppedFile[]) => void; className?: string }) {
  const ref = useRef<HTMLInputElement>(null);
  const pick = async () => {
    const bridge = desktop();
    if (!bridge) return ref.current?.click();
    const picked = await bridge.invoke('dialog:open-files', { title: 'Upload files' });
    if (picked?.length) onFiles(picked.map((f) => ({ file: new File([f.bytes as BlobPart], f.name), relPath: f.name })));
  };
  return (
    <>
      <button type="button" className={`rounded-md bg-ink-700 px-3 py-1.5 text-sm hover:bg-ink-600 ${className}`} onClick={() => void pick()}>
        Upload files…
      </button>
      <input
        ref={ref}
        type="file"
        multiple
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])].map((file) => ({ file, relPath: file.name }));
          e.target.value = '';
          if (files.length) onFiles(files);
        }}
      />
    </>
  );
}
