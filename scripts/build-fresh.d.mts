/** Types for build-fresh.mjs (plain Node, run before any install of tsx is certain). */
export function buildState(root: string, which: 'renderer' | 'desktop'): 'missing' | 'stale' | null;
