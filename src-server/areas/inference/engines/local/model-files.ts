import fs from 'node:fs';
import path from 'node:path';
import { invalid, notFound } from '../../../../kernel/domain-errors.js';

export interface ModelFile {
  name: string;
  file: string;
  sizeBytes: number;
  createdAt: number;
}

export const MODEL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The embedded engine's models: `*.gguf` files in `<dataDir>/models/`; the model is
 * named after the file without `.gguf`. The folder is the source of truth (a file
 * dropped in by hand is a model too).
 */
export class ModelFiles {
  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  list(): ModelFile[] {
    return fs
      .readdirSync(this.dir, { withFileTypes: true })
      .filter((d) => (d.isFile() || d.isSymbolicLink()) && d.name.endsWith('.gguf') && MODEL_NAME.test(d.name.slice(0, -5)))
      .map((d) => this.describe(d.name.slice(0, -5)))
      .filter((m): m is ModelFile => m !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  has(name: string): boolean {
    return MODEL_NAME.test(name) && fs.existsSync(this.fileOf(name));
  }

  fileOf(name: string): string {
    return path.join(this.dir, `${name}.gguf`);
  }

  describe(name: string): ModelFile | undefined {
    try {
      const st = fs.statSync(this.fileOf(name));
      return { name, file: this.fileOf(name), sizeBytes: st.size, createdAt: st.mtimeMs };
    } catch {
      return undefined;
    }
  }

  /** Adds a GGUF file from this machine: a hard link when possible, else a copy. */
  async addFromPath(source: string, name?: string | null): Promise<ModelFile> {
    const src = path.resolve(source);
    if (!fs.existsSync(src) || !fs.statSync(src).isFile()) throw invalid(`No file at ${src}.`, 'path');
    if (!isGguf(src)) throw invalid(`${src} is not a GGUF model file.`, 'path');
    const modelName = name ?? nameFromFile(src);
    if (!MODEL_NAME.test(modelName)) throw invalid(`Cannot name a model "${modelName}"; pass a name of letters, digits, ".", "-" or "_".`, 'name');
    const dest = this.fileOf(modelName);
    if (path.resolve(dest) === src) return this.describe(modelName)!;
    const tmp = `${dest}.adding-${process.pid}-${Date.now()}`;
    try {
      fs.linkSync(src, tmp);
    } catch {
      await fs.promises.copyFile(src, tmp);
    }
    fs.renameSync(tmp, dest);
    return this.describe(modelName)!;
  }

  remove(name: string): void {
    if (!this.has(name)) throw notFound(`No local model named "${name}".`, 'model_not_found', 'model');
    fs.rmSync(this.fileOf(name));
  }
}

export function nameFromFile(file: string): string {
  return (
    path
      .basename(file)
      .replace(/\.gguf$/i, '')
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 128) || 'model'
  );
}

/** GGUF files start with the magic bytes "GGUF". */
export function isGguf(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    return fs.readSync(fd, b, 0, 4, 0) === 4 && b.toString('ascii') === 'GGUF';
  } finally {
    fs.closeSync(fd);
  }
}
