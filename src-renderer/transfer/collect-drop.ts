/**
 * Turns a drop into a flat list of files with paths relative to the drop target,
 * descending into dropped folders (`webkitGetAsEntry`). The DataTransfer is only valid
 * during the event, so everything is captured synchronously before the async walk.
 */
export interface DroppedFile {
  file: File;
  /** e.g. "photos/2024/a.jpg" for a dropped folder "photos". */
  relPath: string;
}

export function collectDrop(dt: DataTransfer): Promise<DroppedFile[]> {
  const captured: Array<{ entry: FileSystemEntry | null; file: File | null }> = [];
  for (const item of [...dt.items]) {
    if (item.kind !== 'file') continue;
    captured.push({ entry: item.webkitGetAsEntry?.() ?? null, file: item.getAsFile() });
  }
  if (captured.length === 0) return Promise.resolve([...dt.files].map((file) => ({ file, relPath: file.name })));
  return Promise.all(
    captured.map(async ({ entry, file }) => {
      if (entry?.isDirectory) return walk(entry as FileSystemDirectoryEntry, entry.name);
      return file ? [{ file, relPath: file.name }] : [];
    }),
  ).then((lists) => lists.flat());
}

async function walk(dir: FileSystemDirectoryEntry, prefix: string): Promise<DroppedFile[]> {
  const out: DroppedFile[] = [];
  for (const entry of await readAll(dir.createReader())) {
    const rel = `${prefix}/${entry.name}`;
    if (entry.isDirectory) out.push(...(await walk(entry as FileSystemDirectoryEntry, rel)));
    else if (entry.isFile) out.push({ file: await fileOf(entry as FileSystemFileEntry), relPath: rel });
  }
  return out;
}

/** readEntries answers in batches (about 100 at a time in Chromium) until an empty one. */
async function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

const fileOf = (entry: FileSystemFileEntry) => new Promise<File>((res, rej) => entry.file(res, rej));
