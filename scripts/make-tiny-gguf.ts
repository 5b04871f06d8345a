// Writes the deterministic tiny test model: `tsx scripts/make-tiny-gguf.ts [out.gguf]`.
import path from 'node:path';
import { writeTinyModel } from '../src-server/areas/inference/test-support/tiny-model.js';

const out = path.resolve(process.argv[2] ?? 'tiny-test.gguf');
writeTinyModel(out);
console.log(out);
