import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { invalid } from '../../../kernel/domain-errors.js';
import type { FilesPort } from '../ports.js';
import { resolvePath, type Target } from './target.js';

const name = (p: string) => p.split('/').filter(Boolean).pop() ?? '/';

/** envd's metadata limits (packages/shared/pkg/filesystem/xattr.go): the xattr namespace, a key's and the whole set's bytes. */
const METADATA_XATTR = 'user.e2b.';
const MAX_KEY = 255 - METADATA_XATTR.length;
const MAX_TOTAL = 4096;
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * envd 0.6.2's file metadata of an upload: every `X-Metadata-<key>` header (the key lowercased,
 * the first value when repeated), checked as envd checks it (printable US-ASCII, 246-byte
 * keys, 4096 bytes in all); undefined when there is none.
 */
function uploadMetadata(req: Pick<Request, 'headersDistinct'>): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  let total = 0;
  for (const [h, values] of Object.entries(req.headersDistinct)) {
    if (!h.startsWith('x-metadata-') || !values?.length) continue;
    const key = h.slice('x-metadata-'.length);
    const value = values[0]!;
    if (!key) continue;
    if (key.length > MAX_KEY) throw invalid(`invalid metadata: metadata key "${key}" exceeds ${MAX_KEY} bytes`, `X-Metadata-${key}`);
    if (!PRINTABLE.test(value)) throw invalid(`invalid metadata: metadata value for key "${key}" contains a non-printable-ASCII byte`, `X-Metadata-${key}`);
    total += METADATA_XATTR.length + key.length + value.length;
    (out ??= {})[key] = value;
  }
  if (total > MAX_TOTAL) throw invalid(`invalid metadata: total metadata size ${total} exceeds ${MAX_TOTAL} bytes`, 'X-Metadata-*');
  return out;
}

/**
 * envd's HTTP `/files`: GET downloads one file, POST uploads (multipart, one part per file,
 * to `?path=` or else its filename; or application/octet-stream to `?path=`, gzip allowed) through
 * Box's files service. Answers envd's shapes: `[{name, type, path, metadata?}]` for an upload.
 * As envd does, an upload as a user is made as root and given to the user (the file and the
 * parent directories it creates), and replaces the file's metadata (`X-Metadata-*` headers,
 * kept as `user.e2b.*` xattrs) with the request's.
 */
export class EnvdFilesHttp {
  constructor(private files: FilesPort) {}

  async download(t: Target, req: Request, res: Response): Promise<void> {
    const q = req.query as Record<string, string | undefined>;
    if (!q.path) throw invalid('path is required', 'path');
    const user = q.username || t.user;
    const path = resolvePath(q.path, user);
    const file = await this.files.read(t.box, path, { user });
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${encodeURIComponent(name(path))}"`,
      ...(file.size !== null ? { 'Content-Length': String(file.size) } : {}),
    });
    await pipeline(file.stream, res);
  }

  async upload(t: Target, req: Request): Promise<Array<{ name: string; type: 'file'; path: string; metadata?: Record<string, string> }>> {
    const q = req.query as Record<string, string | undefined>;
    const user = q.username || t.user;
    const type = req.headers['content-type'] ?? '';
    const metadata = uploadMetadata(req);
    const xattrs = metadata && Object.fromEntries(Object.entries(metadata).map(([k, v]) => [METADATA_XATTR + k, v]));
    const written: Array<{ name: string; type: 'file'; path: string; metadata?: Record<string, string> }> = [];
    const put = async (p: string, source: Readable) => {
      const path = resolvePath(p, user);
      const w = await this.files.write(t.box, path, { mode: 0o644, createParents: true, user, chownToUser: true, keepMode: true, xattrs }, source);
      // as envd, the answer says what the file holds: a file system without user xattrs kept none
      written.push({ name: name(path), type: 'file', path, ...(metadata && w.xattrsSet !== 0 ? { metadata } : {}) });
    };
    if (type.startsWith('multipart/form-data')) {
      // The platform's own multipart parser (undici's Request.formData), no hand-rolled one.
      const form = await new globalThis.Request('http://envd/files', {
        method: 'POST',
        headers: { 'content-type': type },
        body: Readable.toWeb(req) as ReadableStream,
        duplex: 'half',
      } as RequestInit).formData();
      for (const [, v] of form) {
        // as envd: every part is a file's content (a plain field too, when ?path= names where it goes)
        const file = typeof v === 'string' ? undefined : v;
        const p = q.path ?? (file?.name && file.name !== 'blob' ? file.name : undefined);
        if (!p) throw invalid('each file part needs a filename (its path), or send ?path=', 'path');
        await put(p, Readable.from(file ? Buffer.from(await file.arrayBuffer()) : Buffer.from(v as string)));
      }
      if (!written.length) throw invalid('the form holds no file part', 'file');
      return written;
    }
    if (!q.path) throw invalid('path is required for an application/octet-stream upload', 'path');
    const gz = /gzip/i.test(String(req.headers['content-encoding'] ?? ''));
    await put(q.path, gz ? req.pipe(zlib.createGunzip()) : req);
    return written;
  }
}
