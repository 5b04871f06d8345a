/** How a path finds its route, shared by Express's mount order, the plain front and in-process calls. */

/** Mount order: literal segments count, earlier ones more (http/plain-front.ts follows it too). */
export function specificity(path: string): number {
  return path.split('/').reduce((n, seg, i) => n + (seg.startsWith(':') ? 0 : 1000 >> i), 0);
}

/** The decoded parameters when `parts` (a path split on '/') fits the pattern, else undefined. */
export function paramsOf(segs: string[], parts: string[]): Record<string, string> | undefined {
  if (segs.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const part = parts[i]!;
    if (!seg.startsWith(':')) {
      if (seg !== part) return undefined;
      continue;
    }
    if (part === '') return undefined;
    try {
      params[seg.slice(1)] = part.includes('%') ? decodeURIComponent(part) : part;
    } catch {
      return undefined; // Express's registry answers the malformed escape (400 invalid_encoding)
    }
  }
  return params;
}
