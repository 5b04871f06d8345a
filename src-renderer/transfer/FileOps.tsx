import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { Button } from '../ui/Button.js';
import { ConfirmButton } from '../ui/ConfirmButton.js';
import { toast } from '../ui/toast.js';

/** What a browser may do besides upload/download (volumes: new folder, rename, delete). */
export interface FileOps {
  mkdir(path: string): Promise<unknown>;
  remove(path: string, recursive: boolean): Promise<unknown>;
  rename(from: string, to: string): Promise<unknown>;
  /** Refresh the listing after a change. */
  changed(): void;
}

async function attempt(work: () => Promise<unknown>, ok: string, ops: FileOps) {
  try {
    await work();
    toast(ok);
  } catch (e) {
    toast(errorMessage(e), 'error', 9000);
  } finally {
    ops.changed();
  }
}

export function NewFolderButton({ ops, at }: { ops: FileOps; at: (name: string) => string }) {
  const [name, setName] = useState<string | null>(null);
  if (name === null)
    return (
      <Button small onClick={() => setName('')} data-testid="new-folder">
        New folder
      </Button>
    );
  const submit = () => name.trim() && void attempt(() => ops.mkdir(at(name.trim())), `Folder ${name.trim()} created`, ops).then(() => setName(null));
  return (
    <form
      className="flex items-center gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <input
        className="input w-40 py-1 text-xs"
        autoFocus
        placeholder="folder name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && setName(null)}
        data-testid="new-folder-name"
        aria-label="New folder name"
      />
      <Button small variant="primary" type="submit" disabled={!name.trim()} data-testid="new-folder-create">
        Create
      </Button>
    </form>
  );
}

/** Rename (inline field) and Delete (asks twice; folders go with their contents) for one entry. */
export function EntryActions({ ops, path, name, dir }: { ops: FileOps; path: string; name: string; dir: boolean }) {
  const [renaming, setRenaming] = useState<string | null>(null);
  if (renaming !== null) {
    const parent = path.slice(0, path.length - name.length);
    return (
      <form
        className="inline-flex items-center gap-1"
        onSubmit={(e) => {
          e.preventDefault();
          if (renaming.trim() && renaming !== name) void attempt(() => ops.rename(path, parent + renaming.trim()), `Renamed to ${renaming.trim()}`, ops);
          setRenaming(null);
        }}
      >
        <input
          className="input w-36 py-0.5 text-xs"
          autoFocus
          value={renaming}
          onChange={(e) => setRenaming(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && setRenaming(null)}
          data-testid="rename-input"
          aria-label={`New name for ${name}`}
        />
        <Button small type="submit" data-testid="rename-save">
          Save
        </Button>
      </form>
    );
  }
  return (
    <span className="inline-flex items-center gap-0.5">
      <Button small variant="ghost" onClick={() => setRenaming(name)} data-testid="entry-rename">
        Rename
      </Button>
      <ConfirmButton
        testId="entry-delete"
        confirmLabel={dir ? 'Delete folder and contents?' : 'Delete?'}
        onConfirm={() => void attempt(() => ops.remove(path, dir), `${name} deleted`, ops)}
      >
        Delete
      </ConfirmButton>
    </span>
  );
}
