import { useQuery, useQueryClient } from '@tanstack/react-query';
import { boxFileOps, boxHome } from '../../api/box-file-ops.js';
import { useBox, useBoxes } from '../../api/hooks/boxes.js';
import { boxFileUrl, useBoxDirectory } from '../../api/hooks/files.js';
import { href, navigate } from '../../app/router.js';
import { FileBrowser } from '../../transfer/FileBrowser.js';
import { Empty, ErrorNotice, Loading, PageHeader } from '../../ui/states.js';
import { StatusPill } from '../../ui/StatusPill.js';

// a failed box's files come from its stopped disk (the service boots a maintenance VM for them)
const LIVE = new Set(['running', 'sleeping', 'paused', 'failed']);

export function FilesView({ boxId, path }: { boxId?: string; path?: string }) {
  const boxes = useBoxes();
  const live = boxes.data?.data.filter((b) => LIVE.has(b.status)) ?? [];
  // The box named in the route, read by itself (it may be beyond the list's first page).
  const one = useBox(boxId);
  const box = one.data;
  return (
    <div data-testid="view-files">
      <PageHeader title="Files" subtitle="Move files in and out of a box. Browsing a sleeping box wakes it." />
      <div className="grid gap-5 lg:grid-cols-[16rem_1fr]">
        <aside>
          {boxes.isPending ? (
            <Loading />
          ) : boxes.error ? (
            <ErrorNotice error={boxes.error} />
          ) : live.length === 0 ? (
            <Empty title="No live boxes">Create a box to browse its files.</Empty>
          ) : (
            <ul className="space-y-1">
              {live.map((b) => (
                <li key={b.box_id}>
                  <a
                    href={href(['files', b.box_id])}
                    data-testid="files-box"
                    className={`flex items-center justify-between rounded-md border px-3 py-2 ${b.box_id === boxId ? 'border-accent-500/60 bg-ink-800' : 'border-ink-800 hover:border-ink-600'}`}
                  >
                    <span className="truncate">{b.name}</span>
                    <StatusPill status={b.status} />
                  </a>
                </li>
              ))}
            </ul>
          )}
        </aside>
        <section className="min-w-0">
          {boxId && one.isPending ? (
            <Loading />
          ) : one.error ? (
            <ErrorNotice error={one.error} />
          ) : box ? (
            !LIVE.has(box.status) ? (
              <Empty title={`${box.name} is ${box.status.replace(/_/g, ' ')}`}>Only a running or sleeping box has files to browse.</Empty>
            ) : box.status === 'paused' ? (
              <Empty title={`${box.name} is paused`}>Resume it to browse its files.</Empty>
            ) : box.status === 'failed' ? (
              <>
                <p className="mb-3 rounded-md border border-rose-400/30 bg-rose-400/10 px-3 py-2 text-xs text-rose-200" data-testid="files-failed-note">
                  {box.name} failed: its files are read and written on its stopped disk (the first call starts a maintenance VM from that disk, which takes a
                  few seconds). The box stays failed until you reboot it.
                </p>
                <Browser boxId={box.box_id} path={path ?? '/root'} go={(p) => navigate(['files', box.box_id], { path: p })} />
              </>
            ) : (
              <BoxFiles boxId={box.box_id} path={path} go={(p) => navigate(['files', box.box_id], { path: p })} />
            )
          ) : (
            <Empty title="Select a box">Pick a box on the left.</Empty>
          )}
        </section>
      </div>
    </div>
  );
}

/**
 * A box's files: the browser with drag-and-drop upload, starting (without a path in the
 * route) in the home of the user execs run as. `go` opens another folder (the Files view
 * and the box's Files tab each keep the path in their own route).
 */
export function BoxFiles({ boxId, path, go }: { boxId: string; path?: string; go: (path: string) => void }) {
  const home = useQuery({ queryKey: ['boxes', boxId, 'home'], queryFn: () => boxHome(boxId), enabled: path === undefined, staleTime: Infinity });
  if (path === undefined && home.isPending) return <Loading label="Finding the home folder" />;
  return <Browser boxId={boxId} path={path ?? home.data ?? '/'} go={go} />;
}

function Browser({ boxId, path, go }: { boxId: string; path: string; go: (path: string) => void }) {
  const qc = useQueryClient();
  const segments = path.split('/').filter(Boolean);
  const abs = (s: string[]) => `/${s.join('/')}`;
  const listing = useBoxDirectory(boxId, abs(segments));
  const changed = () => void qc.invalidateQueries({ queryKey: ['boxes', boxId, 'dir'] });
  return (
    <FileBrowser
      rootLabel="/"
      segments={segments}
      listing={listing}
      toPath={abs}
      onNavigate={(s) => go(abs(s))}
      fileUrl={(p) => boxFileUrl(boxId, p)}
      onUploaded={changed}
      ops={{ ...boxFileOps(boxId), changed }}
    />
  );
}
