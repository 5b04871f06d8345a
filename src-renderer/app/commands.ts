import type { ComponentType } from 'react';

/** One thing the command palette can do. */
export interface Command {
  id: string;
  label: string;
  /** Shown at the right: a shortcut or where it applies. */
  hint?: string;
  /** Extra words it is found by (an id, a synonym). */
  keywords?: string;
  /** Destructive: the palette asks for a second Enter with this question. */
  confirm?: string;
  run: () => unknown;
}

/**
 * A command source: a component the palette mounts while it is open. It reads what it
 * needs with the usual hooks and hands its commands to `publish` (again whenever they
 * change). Views add theirs with `addCommandSource` (app/command-sources.ts lists them).
 */
export type CommandSource = ComponentType<{ publish: (source: string, commands: Command[]) => void }>;

const sources: CommandSource[] = [];

export function addCommandSource(source: CommandSource): void {
  if (!sources.includes(source)) sources.push(source);
}

export const commandSources = (): readonly CommandSource[] => sources;

/** Every word of the query is in the label or the keywords (any order, any case). */
export function matches(c: Command, query: string): boolean {
  const hay = `${c.label} ${c.keywords ?? ''}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}
