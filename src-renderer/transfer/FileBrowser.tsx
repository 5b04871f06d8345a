import type { UseQueryResult } from '@tanstack/react-query';
import type { DirectoryListing, VolumeEntry } from '@box/contract/volumes';
import { formatBytes, formatMode, formatTime } from '../ui/format.js';
import { ErrorNotice, Loading } from '../ui/states.js';
import { UPLOAD_TEMP_PREFIX } from '@box/contract/volume-ops';
import { DropZone, FilePickerButton } from './DropZone.js';
import { EntryActions, NewFolderButton, type FileOps } from './FileOps.js';
import { TransferList } from './TransferList.js';
import { useTransfers } from './use-transfers.js';
import { useState } from 'react';
import { FilePreview } from './FilePreview.js';

/**
 * Directory browser shared by volumes and box files: breadcrumbs, entries with size,
 * octal mode and time, download links, and drag-and-drop upload into the current folder.
 * Paths are segment lists; `toPath` renders them the way the API wants them.
 */
interface FileBrowserProps {
  rootLabel: string;
  segments: string[];
  listing: UseQueryResult<DirectoryListing>;
  toPath: (segments: string[]) => string;
  onNavigate: (segments: string[]) => void;
  fileUrl: (path: string) => string;
  onUploaded: () => void;
  /** New folder, rename, delete; absent: upload, download and preview only. */
  ops?: FileOps;
}

export function FileBrowser({ rootLabel, segments, listing, toPath, onNavigate, fileUrl, onUploaded, ops }: FileBrowserProps) {
  const transfers = useTransfers(onUploaded);
  const upload = (files: Array<{ file: File; relPath: string }>) =>
    transfers.enqueue(
      files.map(({ file, relPath }) => {
        const target = toPath([...segments, ...relPath.split('/')]);
        return { file, name: relPath, target, url: fileUrl(target) };
      }),
    );
  // Unfinished uploads (temp files renamed into place at the end) are not the user's files.
  const entries = (listing.data?.entries ?? []).filter((e) => !e.name.startsWith(UPLOAD_TEMP_PREFIX));
  const [previewing, setPreviewing] = useState<VolumeEntry | null>(null);
  return (
    <div>
      <div className="mb-3 flex items-center justify-between gap-3">
        <nav aria-label="Breadcrumbs" className="flex min-w-0 flex-wrap items-center gap-1 font-mono text-xs" data-testid="breadcrumbs">
          <button type="button" className="rounded px-1.5 py-0.5 text-accent-300 hover:bg-ink-800" onClick={() => onNavigate([])}>
            {rootLabel}
          </button>
          {segments.map((s, i) => (
            <span key={i} className="flex items-center gap-1">
              <span className="text-ink-600">/</span>
              <button type="button" className="rounded px-1.5 py-0.5 hover:bg-ink-800" onClick={() => onNavigate(segments.slice(0, i + 1))}>
                {s}
              </button>
            </span>
          ))}
        </nav>
        <span className="flex items-center gap-2">
          {ops && <NewFolderButton ops={ops} at={(n) => toPath([...segments, n])} />}
          <FilePickerButton onFiles={upload} />
        </span>
      </div>
      <DropZone onFiles={upload} testId="drop-zone">
        <div className="panel min-h-48 overflow-x-auto">
          {listing.isPending ? (
            <Loading />
          ) : listing.error ? (
            <div className="p-3">
              <ErrorNotice error={listing.error} />
            </div>
          ) : (
            <table className="table" data-testid="entries">
              <thead>
                <tr>
                  <th>Name</th>
                  <th className="text-right">Size</th>
                  <th>Mode</th>
                  <th>Modified</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {segments.length > 0 && (
                  <tr>
                    <td colSpan={5}>
                      <button type="button" className="font-mono text-ink-400 hover:text-ink-100" onClick={() => onNavigate(segments.slice(0, -1))}>
                        ..
                      </button>
                    </td>
                  </tr>
                )}
                {entries.map((e) => (
                  <EntryRow
                    key={e.name}
                    entry={e}
                    onOpen={() => (e.type === 'directory' ? onNavigate([...segments, e.name]) : setPreviewing(e))}
                    href={fileUrl(toPath([...segments, e.name]))}
                    ops={ops}
                    path={toPath([...segments, e.name])}
                  />
                ))}
                {entries.length === 0 && (
                  <tr>
                    <td colSpan={5} className="py-10 text-center text-ink-400">
                      This folder is empty. Drop files or folders here to upload them.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          )}
          <p className="border-t border-dashed border-ink-700 px-3 py-2 text-center text-xs text-ink-300" data-testid="drop-hint">
            <span aria-hidden>⤓ </span>
            Drop files or folders here to upload them into <span className="font-mono">{toPath(segments) || rootLabel}</span>, or use <em>Upload files…</em>
          </p>
        </div>
      </DropZone>
      <TransferList items={transfers.items} onCancel={transfers.cancel} onClear={transfers.clearFinished} />
      {previewing && (
        <FilePreview name={previewing.name} size={previewing.size} url={fileUrl(toPath([...segments, previewing.name]))} onClose={() => setPreviewing(null)} />
      )}
    </div>
  );
}

function EntryRow({ entry, onOpen, href, ops, path }: { entry: VolumeEntry; onOpen: () => void; href: string; ops?: FileOps; path: string }) {
  const dir = entry.type === 'directory';
  return (
    <tr data-testid="entry" data-name={entry.name} data-type={entry.type}>
      <td>
        {dir ? (
          <button type="button" className="flex items-center gap-2 font-medium text-sky-300 hover:underline" onClick={onOpen}>
            <span aria-hidden>▸</span>
            {entry.name}/
          </button>
        ) : (
          <button type="button" className="flex items-center gap-2 text-left hover:underline" onClick={onOpen} title="Preview" data-testid="entry-open">
            <span aria-hidden className="text-ink-600">
              {entry.type === 'symlink' ? '↪' : '·'}
            </span>
            {entry.name}
          </button>
        )}
      </td>
      <td className="text-right font-mono text-ink-300" data-testid="entry-size">
        {dir ? '—' : formatBytes(entry.size)}
      </td>
      <td className="font-mono text-ink-400" data-testid="entry-mode">
        {formatMode(entry.mode)}
      </td>
      <td className="text-ink-400">{formatTime(entry.modified_time)}</td>
      <td className="text-right whitespace-nowrap">
        {ops && <EntryActions ops={ops} path={path} name={entry.name} dir={dir} />}
        {entry.type === 'file' && (
          <a
            className="rounded px-2 py-0.5 text-xs text-ink-300 hover:bg-ink-700 hover:text-ink-100"
            href={href}
            download={entry.name}
            data-testid="entry-download"
          >
            Download
          </a>
        )}
      </td>
    </tr>
  );
}
