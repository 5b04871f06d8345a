import type { CatalogEntry } from '@box/contract/inference';

export type { CatalogEntry };

/**
 * The curated catalog of small instruction-tuned GGUF models (issue 10), each runnable by
 * the embedded engine on a laptop CPU. `sha256` is the file's checksum, verified after every
 * pull. These entries leave it null (this list was written without network access): every
 * source is a Hugging Face `resolve` URL of an LFS file, whose sha256 the pull reads from
 * the publisher's `X-Linked-Etag` before downloading (pulls.ts, publishedSha256) and
 * verifies. A pinned value here would also guard against a changed upstream file. Tests
 * inject their own catalog (tuning `modelCatalog`).
 */

export const DEFAULT_CATALOG: CatalogEntry[] = [
  {
    id: 'qwen2.5-0.5b-instruct-q4_k_m',
    name: 'qwen2.5-0.5b-instruct',
    description: 'Qwen2.5 0.5B Instruct: the smallest useful chat model; fast on any CPU; JSON output.',
    parameters: '0.5B',
    quantization: 'Q4_K_M',
    size_bytes: 397_808_192,
    licence: 'Apache-2.0',
    source_url: 'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf',
    sha256: null,
  },
  {
    id: 'qwen2.5-1.5b-instruct-q4_k_m',
    name: 'qwen2.5-1.5b-instruct',
    description: 'Qwen2.5 1.5B Instruct: better answers, still light; multilingual.',
    parameters: '1.5B',
    quantization: 'Q4_K_M',
    size_bytes: 1_117_320_736,
    licence: 'Apache-2.0',
    source_url: 'https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf',
    sha256: null,
  },
  {
    id: 'llama-3.2-1b-instruct-q4_k_m',
    name: 'llama-3.2-1b-instruct',
    description: 'Llama 3.2 1B Instruct (Meta), quantized by bartowski.',
    parameters: '1B',
    quantization: 'Q4_K_M',
    size_bytes: 807_694_464,
    licence: 'Llama 3.2 Community License',
    source_url: 'https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf',
    sha256: null,
  },
  {
    id: 'smollm2-360m-instruct-q8_0',
    name: 'smollm2-360m-instruct',
    description: 'SmolLM2 360M Instruct (Hugging Face): tiny, for very constrained machines.',
    parameters: '360M',
    quantization: 'Q8_0',
    size_bytes: 386_404_992,
    licence: 'Apache-2.0',
    source_url: 'https://huggingface.co/HuggingFaceTB/SmolLM2-360M-Instruct-GGUF/resolve/main/smollm2-360m-instruct-q8_0.gguf',
    sha256: null,
  },
];
