import { useDeleteImage, useImages } from '../../api/hooks/images.js';
import { Ago } from '../../ui/Ago.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { Empty, ErrorNotice, Loading, PageHeader } from '../../ui/states.js';
import { BoxName } from '../../ui/names.js';
import { Mono } from '../../ui/StatusPill.js';

const mib = (n: number) => (n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GiB` : `${(n / (1 << 20)).toFixed(1)} MiB`);

/** Images boxes start from. Building and importing are CLI-only (spec): the view says how. */
export function ImagesView() {
  const images = useImages();
  const del = useDeleteImage();
  return (
    <div data-testid="view-images">
      <PageHeader
        title="Images"
        subtitle={
          <>
            What boxes start from. Build one with <code>box image build -f Boxfile -t NAME .</code> or import a <code>docker save</code> archive with{' '}
            <code>box image import image.tar -t NAME</code>.
          </>
        }
      />
      <ErrorNotice error={del.error} />
      {images.isPending ? (
        <Loading />
      ) : images.error ? (
        <ErrorNotice error={images.error} />
      ) : images.data.length === 0 ? (
        <Empty title="No images">The built-in image appears once the service is up.</Empty>
      ) : (
        <table className="w-full text-sm" data-testid="image-list">
          <thead className="text-left text-xs text-ink-400">
            <tr>
              <th className="py-1.5">Name</th>
              <th>Source</th>
              <th>Base</th>
              <th>Size</th>
              <th>Created</th>
              <th>Boxes</th>
              <th>Digest</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {images.data.map((i) => (
              <tr key={i.name} className="border-t border-ink-800" data-testid="image-row" data-name={i.name}>
                <td className="py-2 font-mono font-medium">{i.name}</td>
                <td>{i.source}</td>
                <td className="font-mono">{i.base ?? '—'}</td>
                <td title="This image's own layers; a shared base is not counted">{mib(i.size_bytes)}</td>
                <td>{i.source === 'builtin' && i.size_bytes === 0 ? 'built on first use' : <Ago iso={i.created_at} />}</td>
                <td>
                  {i.boxes.length === 0
                    ? '—'
                    : i.boxes.map((b) => (
                        <span key={b} className="mr-2 inline-block">
                          <BoxName id={b} />
                        </span>
                      ))}
                </td>
                <td>
                  <Mono>{i.digest.slice(0, 19)}</Mono>
                </td>
                <td className="text-right">
                  {i.source !== 'builtin' && (
                    <ConfirmButton
                      busy={del.isPending && del.variables === i.name}
                      testId={`image-delete-${i.name}`}
                      confirmLabel={`Delete ${i.name}?`}
                      onConfirm={() => del.mutate(i.name)}
                    >
                      Delete
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
