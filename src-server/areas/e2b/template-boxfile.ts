import fs from 'node:fs';
import path from 'node:path';

/** A step of E2B's template (TemplateStep): `type` and its `args` as the SDK serializes them. */
interface TemplateStep {
  type: string;
  args?: string[];
  filesHash?: string;
  force?: boolean;
}

/** E2B's TemplateBuildStartV2, with the base already resolved to a Box image. */
export interface TemplateSpec {
  steps?: TemplateStep[];
  startCmd?: string;
  readyCmd?: string;
}

/** Why a template cannot be built (the build ends in `error` with this as its reason). */
export class TemplateSpecError extends Error {
  constructor(
    message: string,
    readonly step?: number,
  ) {
    super(message);
  }
}

const q = (s: string) => JSON.stringify(s);
const GLOB = /[*?[]/;

function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function walk(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    out.push(p);
    if (e.isDirectory()) out.push(...walk(root, p));
  }
  return out;
}

const isLink = (p: string) => {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

/** The symlinks under a folder (Box's COPY leaves them out), relative to it. */
function linksUnder(root: string, rel = ''): string[] {
  return walk(path.join(root, rel)).flatMap((p) => (isLink(path.join(root, rel, p)) ? [rel ? `${rel}/${p}` : p] : []));
}

/**
 * The sources of one E2B `copy`, relative to the build context: `dir` holds the files the SDK
 * uploaded for it (paths relative to its file context); a glob picks the entries it matches
 * (not those inside a matched folder, which come with it). Symlinks come apart (`links`, with
 * their path under the copy's destination): Box's COPY takes files and folders only, and E2B
 * copies a link as a link (the SDK sends it so unless `resolveSymlinks`).
 */
function copySources(
  context: string,
  dir: string,
  src: string,
  step: number,
): { files: string[]; links: Array<{ at: string; inside: boolean; target: string }> } {
  const clean = path.posix.normalize(src).replace(/^(\.\/)+/, '');
  const base = path.join(context, dir);
  const matches = GLOB.test(clean) ? walk(base).filter((p) => globRegExp(clean).test(p)) : [clean];
  const top = matches.filter((m) => !matches.some((o) => o !== m && m.startsWith(`${o}/`)));
  const found = top.filter((m) => isLink(path.join(base, m)) || fs.existsSync(path.join(base, m)));
  if (!found.length) throw new TemplateSpecError(`copy: no uploaded files match "${src}"`, step);
  const links: Array<{ at: string; inside: boolean; target: string }> = [];
  const files: string[] = [];
  for (const m of found) {
    const abs = path.join(base, m);
    if (isLink(abs)) links.push({ at: path.posix.basename(m), inside: false, target: fs.readlinkSync(abs) });
    else {
      files.push(`${dir}/${m}`);
      if (fs.statSync(abs).isDirectory())
        // a folder's contents go into the destination (Box's COPY, as Docker's)
        for (const l of linksUnder(abs)) links.push({ at: l, inside: true, target: fs.readlinkSync(path.join(abs, l)) });
    }
  }
  return { files, links };
}

/**
 * E2B's template steps as a Boxfile (Box's image builder: images/boxfile.ts) on `base`:
 * RUN (as its user, when given), COPY (the uploaded files, `--chmod`, then its owner), ENV,
 * WORKDIR, USER; the start command is the image's CMD, started at every boot. `files(i)`
 * is the context folder the SDK's upload for step i was unpacked into.
 */
export function boxfileOf(base: string, spec: TemplateSpec, context: string, files: (step: number, hash: string) => string): string {
  const lines = [`FROM ${base}`];
  let user = 'root';
  const asUser = (who: string | undefined, line: string) => {
    if (!who || who === user) return lines.push(line);
    lines.push(`USER ${who}`, line, `USER ${user}`);
  };
  for (const [i, s] of (spec.steps ?? []).entries()) {
    const a = s.args ?? [];
    const type = s.type.toUpperCase();
    if (type === 'RUN') asUser(a[1] || undefined, `RUN ["bash", "-c", ${q(a[0] ?? '')}]`);
    else if (type === 'COPY') {
      if (!s.filesHash) throw new TemplateSpecError('copy: the step has no filesHash (its files were not uploaded)', i);
      const { files: sources, links } = copySources(context, files(i, s.filesHash), a[0] ?? '', i);
      const dest = a[1] ?? '.';
      const intoDir = sources.length + links.length > 1 || dest.endsWith('/');
      const mode = a[3] ? [`--chmod=${a[3].replace(/^0+(?=\d{3,4}$)/, '')}`] : [];
      if (sources.length) lines.push(`COPY ${JSON.stringify([...mode, ...sources, intoDir && !dest.endsWith('/') ? `${dest}/` : dest])}`);
      for (const l of links) {
        const at = l.inside || intoDir ? path.posix.join(dest, l.at) : dest;
        lines.push(`RUN ${JSON.stringify(['sh', '-c', 'mkdir -p -- "$(dirname -- "$1")" && ln -sfn -- "$0" "$1"', l.target, at])}`);
      }
      if (a[2] && a[2] !== 'root') lines.push(`RUN ["chown", "-R", ${q(a[2])}, ${q(dest)}]`);
    } else if (type === 'ENV') {
      const pairs: string[] = [];
      for (let k = 0; k + 1 < a.length; k += 2) pairs.push(`${a[k]}=${q(a[k + 1]!)}`);
      if (pairs.length) lines.push(`ENV ${pairs.join(' ')}`);
    } else if (type === 'WORKDIR') lines.push(`WORKDIR ${a[0]}`);
    else if (type === 'USER') {
      user = a[0] ?? 'root';
      lines.push(`USER ${user}`);
    } else throw new TemplateSpecError(`step type ${s.type} is not one Box's builder runs (RUN, COPY, ENV, WORKDIR, USER)`, i);
  }
  if (spec.startCmd) lines.push(`CMD ["bash", "-c", ${q(spec.startCmd)}]`);
  return `${lines.join('\n')}\n`;
}
