/**
 * Finds where an API `param` such as `document["api.example.com"].rules[0].match` (or the
 * dotted `document.api.example.com.rules[0]`) points
 * inside the JSON text the user typed. Host keys contain dots, so the path is resolved
 * against the parsed document (longest matching key first), then each key is searched
 * for in the text after the previous one. Answers a 1-based line, or null.
 */
export function resolveParamPath(param: string, root: unknown, prefix = 'document'): Array<string | number> | null {
  if (param !== prefix && !param.startsWith(`${prefix}.`) && !param.startsWith(`${prefix}[`)) return null;
  let rest = param.slice(prefix.length);
  let node: unknown = root;
  const path: Array<string | number> = [];
  while (rest.length > 0) {
    const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (quoted) {
      const key = JSON.parse(quoted[1]) as string;
      path.push(key);
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
      rest = rest.slice(quoted[0].length);
      continue;
    }
    const idx = /^\[(\d+)\]/.exec(rest);
    if (idx) {
      path.push(Number(idx[1]));
      node = Array.isArray(node) ? node[Number(idx[1])] : undefined;
      rest = rest.slice(idx[0].length);
      continue;
    }
    if (!rest.startsWith('.')) return path;
    rest = rest.slice(1);
    const keys = node && typeof node === 'object' ? Object.keys(node).sort((a, b) => b.length - a.length) : [];
    const key = keys.find((k) => rest === k || rest.startsWith(`${k}.`) || rest.startsWith(`${k}[`)) ?? /^[^.[]+/.exec(rest)?.[0];
    if (!key) return path;
    path.push(key);
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    rest = rest.slice(key.length);
  }
  return path;
}

export function lineOfPath(text: string, path: Array<string | number>): number | null {
  let pos = 0;
  let found = false;
  for (const seg of path) {
    if (typeof seg === 'number') continue; // array items have no key to find; keep the parent's line
    const at = text.indexOf(JSON.stringify(seg), pos);
    if (at < 0) break;
    pos = at + 1;
    found = true;
  }
  if (!found) return null;
  return text.slice(0, pos).split('\n').length;
}
