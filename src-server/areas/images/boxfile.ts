/**
 * The Boxfile: a Dockerfile subset people already know. FROM (a Box image, first and
 * once), RUN (shell or JSON form), COPY [--chmod=MODE] SRC... DEST (files and folders of
 * the build context), ENV, WORKDIR, USER, CMD (shell or JSON form). `\` continues a line,
 * `#` starts a comment line. Errors name the line.
 * One instruction of Box's own: `PACKAGES name...`, right after `FROM debian`: Debian
 * packages installed the way the built-in image is built (mmdebstrap on the host, in
 * minutes), instead of `RUN apt-get install` in a builder box (apt under TCG: tens of
 * minutes for a desktop's packages). builder.ts.
 */
import { IMAGE_NAME } from '@box/contract/images';

export type Step =
  | { op: 'FROM'; line: number; text: string; image: string }
  | { op: 'RUN'; line: number; text: string; argv: string[] }
  | { op: 'COPY'; line: number; text: string; sources: string[]; dest: string; chmod: number | null }
  | { op: 'ENV'; line: number; text: string; vars: Record<string, string> }
  | { op: 'WORKDIR'; line: number; text: string; path: string }
  | { op: 'USER'; line: number; text: string; user: string }
  | { op: 'CMD'; line: number; text: string; argv: string[] }
  | { op: 'PACKAGES'; line: number; text: string; packages: string[] };

/** A Debian package name (Debian policy 5.6.1), optionally with an architecture qualifier. */
const DEB_PACKAGE = /^[a-z0-9][a-z0-9+.-]+(:[a-z0-9]+)?$/;

export class BoxfileError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`Boxfile line ${line}: ${message}`);
  }
}

function jsonArray(line: number, s: string): string[] | null {
  if (!s.startsWith('[')) return null;
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    throw new BoxfileError(line, `invalid JSON array: ${s}`);
  }
  if (!Array.isArray(v) || !v.length || !v.every((x) => typeof x === 'string'))
    throw new BoxfileError(line, 'the JSON form must be a non-empty array of strings');
  return v as string[];
}

/** Splits on whitespace, honouring double and single quotes (ENV values, COPY paths). */
function words(s: string): string[] {
  const out: string[] = [];
  const token = /(?:[^\s"']+|"(?:[^"\\]|\\.)*"|'[^']*')+/g;
  const part = /"((?:[^"\\]|\\.)*)"|'([^']*)'/g;
  for (const [t] of s.matchAll(token))
    out.push(t.replace(part, (_m, dq: string | undefined, sq: string | undefined) => (dq !== undefined ? dq.replace(/\\(.)/g, '$1') : sq!)));
  return out;
}

function parseEnv(line: number, rest: string): Record<string, string> {
  const vars: Record<string, string> = {};
  const name = /^[A-Za-z_][A-Za-z0-9_]*$/;
  if (!rest.includes('=') || (/^\S+\s/.test(rest) && !/^\S+=/.test(rest))) {
    const [k, ...v] = rest.split(/\s+/);
    if (!k || !name.test(k) || !v.length) throw new BoxfileError(line, 'ENV needs KEY=VALUE (or KEY VALUE)');
    vars[k] = v.join(' ');
    return vars;
  }
  for (const w of words(rest)) {
    const i = w.indexOf('=');
    const k = w.slice(0, i);
    if (i <= 0 || !name.test(k)) throw new BoxfileError(line, `ENV expects KEY=VALUE, got "${w}"`);
    vars[k] = w.slice(i + 1);
  }
  return vars;
}

export function parseBoxfile(source: string): Step[] {
  const steps: Step[] = [];
  const lines = source.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let text = lines[i]!.trim();
    if (!text || text.startsWith('#')) continue;
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    const m = /^([A-Za-z]+)\s*(.*)$/.exec(text);
    const op = m?.[1]?.toUpperCase();
    const rest = (m?.[2] ?? '').trim();
    if (!op) throw new BoxfileError(lineNo, `cannot read "${text}"`);
    if (!rest) throw new BoxfileError(lineNo, `${op} needs an argument`);
    if (op !== 'FROM' && !steps.length) throw new BoxfileError(lineNo, 'the first instruction must be FROM');
    switch (op) {
      case 'FROM':
        if (steps.length) throw new BoxfileError(lineNo, 'FROM may appear only once, first');
        if (!IMAGE_NAME.test(rest)) throw new BoxfileError(lineNo, `FROM names a Box image (e.g. debian), got "${rest}"`);
        steps.push({ op, line: lineNo, text, image: rest });
        break;
      case 'RUN':
      case 'CMD':
        steps.push({ op, line: lineNo, text, argv: jsonArray(lineNo, rest) ?? ['/bin/sh', '-c', rest] });
        break;
      case 'COPY': {
        const parts = jsonArray(lineNo, rest) ?? words(rest);
        let chmod: number | null = null;
        while (parts[0]?.startsWith('--')) {
          const flag = parts.shift()!;
          const cm = /^--chmod=([0-7]{3,4})$/.exec(flag);
          if (!cm) throw new BoxfileError(lineNo, `unsupported COPY flag ${flag} (only --chmod=OCTAL)`);
          chmod = parseInt(cm[1]!, 8);
        }
        if (parts.length < 2) throw new BoxfileError(lineNo, 'COPY needs at least one source and a destination');
        const dest = parts.pop()!;
        steps.push({ op, line: lineNo, text, sources: parts, dest, chmod });
        break;
      }
      case 'ENV':
        steps.push({ op, line: lineNo, text, vars: parseEnv(lineNo, rest) });
        break;
      case 'WORKDIR':
        if (!rest.startsWith('/')) throw new BoxfileError(lineNo, 'WORKDIR must be an absolute path');
        steps.push({ op, line: lineNo, text, path: rest });
        break;
      case 'USER':
        if (!/^[a-z_][a-z0-9_-]*$|^\d+$/.test(rest)) throw new BoxfileError(lineNo, `USER must be a user name, got "${rest}"`);
        steps.push({ op, line: lineNo, text, user: rest });
        break;
      case 'PACKAGES': {
        if (steps.length !== 1) throw new BoxfileError(lineNo, 'PACKAGES comes right after FROM, once');
        const packages = words(rest);
        const bad = packages.find((p) => !DEB_PACKAGE.test(p));
        if (bad) throw new BoxfileError(lineNo, `PACKAGES lists Debian package names, got "${bad}"`);
        steps.push({ op, line: lineNo, text, packages: [...new Set(packages)].sort() });
        break;
      }
      default:
        throw new BoxfileError(lineNo, `unsupported instruction ${op} (FROM, PACKAGES, RUN, COPY, ENV, WORKDIR, USER, CMD)`);
    }
  }
  if (!steps.length) throw new BoxfileError(1, 'empty Boxfile: it needs at least FROM');
  return steps;
}
