import { useQueryClient } from '@tanstack/react-query';
import { Ago } from '../../ui/Ago.js';
import { useState } from 'react';
import { call } from '../../api/client.js';
import { useCreateVolume, useDeleteVolume, useVolumeDirectory, useVolumes, volumeFileUrl } from '../../api/hooks/volumes.js';
import { href, navigate } from '../../app/router.js';
import { FileBrowser } from '../../transfer/FileBrowser.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { Empty, ErrorNotice, Loading, PageHeader } from '../../ui/states.js';
import { Mono } from '../../ui/StatusPill.js';

export function VolumesView({ volumeId, path }: { volumeId?: string; path: string }) {
  const volumes = useVolumes();
  const create = useCreateVolume();
  const del = useDeleteVolume();
  const [name, setName] = useState('');
  // Create with no name said nothing: it says what is missing, at the field.
  const [nameMissing, setNameMissing] = useState(false);
  const selected = volumes.data?.find((v) => v.volume_id === volumeId);
  return (
    <div data-testid="view-volumes">
      <PageHeader title="Volumes" subtitle="Persistent folders you mount into boxes; browse and move files without a box." />
      <div className="grid gap-5 lg:grid-cols-[18rem_1fr]">
        <aside className="space-y-3">
          <form
            className="flex gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (!name.trim()) return setNameMissing(true);
              create.mutate(name.trim(), {
                onSuccess: (v) => {
                  setName('');
                  navigate(['volumes', v.volume_id]);
                },
              });
            }}
          >
            <input
              className={`input ${create.error || nameMissing ? 'input-error' : ''}`}
              placeholder="new-volume-name"
              value={name}
              onChange={(e) => (setName(e.target.value), setNameMissing(false))}
              data-testid="volume-name"
              aria-label="New volume name"
              aria-invalid={nameMissing || undefined}
              aria-describedby={nameMissing ? 'volume-name-missing' : undefined}
            />
            <Button type="submit" variant="primary" busy={create.isPending} data-testid="volume-create">
              Create
            </Button>
          </form>
          {nameMissing && (
            <p id="volume-name-missing" role="alert" className="text-xs text-rose-300" data-testid="volume-name-missing">
              Give the volume a name (letters, digits, “.”, “-” and “_”).
            </p>
          )}
          <ErrorNotice error={create.error} compact />
          {volumes.isPending ? (
            <Loading />
          ) : volumes.error ? (
            <ErrorNotice error={volumes.error} />
          ) : volumes.data.length === 0 ? (
            <Empty title="No volumes yet">Create one to keep data across boxes.</Empty>
          ) : (
            <ul className="space-y-1" data-testid="volume-list">
              {volumes.data.map((v) => (
                <li key={v.volume_id}>
                  <a
                    href={href(['volumes', v.volume_id])}
                    data-testid="volume-item"
                    data-name={v.name}
                    className={`block rounded-md border px-3 py-2 ${v.volume_id === volumeId ? 'border-accent-500/60 bg-ink-800' : 'border-ink-800 hover:border-ink-600'}`}
                  >
                    <div className="font-medium">{v.name}</div>
                    <div className="text-[11px] text-ink-400">
                      {v.backend} · created <Ago iso={v.created_at} testId="volume-created" />
                    </div>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </aside>
        <section className="min-w-0">
          {selected ? (
            <>
              <div className="mb-3 flex items-center justify-between">
                <div className="flex items-center gap-2">
                  <h2 className="font-semibold">{selected.name}</h2>
                  <Mono>{selected.volume_id}</Mono>
                </div>
                <ConfirmButton
                  busy={del.isPending}
                  testId="volume-delete"
                  confirmLabel="Delete it and all its files?"
                  onConfirm={() => del.mutate(selected.volume_id, { onSuccess: () => navigate(['volumes']) })}
                >
                  Delete volume
                </ConfirmButton>
              </div>
              <ErrorNotice error={del.error} />
              <VolumeBrowser volumeId={selected.volume_id} path={path} />
            </>
          ) : volumeId && volumes.isSuccess ? (
            <Empty title="Volume not found">It may have been deleted.</Empty>
          ) : (
            <Empty title="Select a volume">Pick a volume on the left to browse its files, or create one.</Empty>
          )}
        </section>
      </div>
    </div>
  );
}

function VolumeBrowser({ volumeId, path }: { volumeId: string; path: string }) {
  const qc = useQueryClient();
  const segments = path.split('/').filter(Boolean);
  const listing = useVolumeDirectory(volumeId, segments.join('/'));
  return (
    <FileBrowser
      rootLabel="/"
      segments={segments}
      listing={listing}
      toPath={(s) => s.join('/')}
      onNavigate={(s) => navigate(['volumes', volumeId], { path: s.join('/') })}
      fileUrl={(p) => volumeFileUrl(volumeId, p)}
      onUploaded={() => void qc.invalidateQueries({ queryKey: ['volumes', volumeId] })}
      ops={{
        mkdir: (p) => call('POST /v1/box-volumes/:volume_id/directories', { params: { volume_id: volumeId }, body: { path: p } }),
        remove: (p, recursive) =>
          call('DELETE /v1/box-volumes/:volume_id/paths', { params: { volume_id: volumeId }, query: { path: p, recursive: recursive ? 'true' : undefined } }),
        rename: (from, to) => call('POST /v1/box-volumes/:volume_id/paths/move', { params: { volume_id: volumeId }, body: { from, to } }),
        changed: () => void qc.invalidateQueries({ queryKey: ['volumes', volumeId] }),
      }}
    />
  );
}
