import fs from 'node:fs';
import path from 'node:path';
import { encodeGguf, type MetaValue, type Tensor } from './gguf-writer.js';

/**
 * A tiny llama-architecture GGUF model (F32, ~360-token SPM vocabulary) built from a
 * seeded PRNG, so the file and its greedy outputs are deterministic.
 *
 * Design: token embeddings are one-hot and the attention/FFN weights are small random
 * noise, so the residual stream is dominated by the current token and the output matrix
 * acts as a bigram table. The table spells `TINY_REPLY` as a chain of word tokens that
 * ends in EOS; every other token predicts the chain's first word. llama.cpp still runs
 * the full transformer (norms, RoPE attention, SwiGLU) over it. Under a grammar the
 * allowed tokens all sit near logit 0, and the noise picks among them deterministically.
 */
export const TINY_REPLY = 'Hello from the tiny model.';
const CHAIN = ['Hello', '▁from', '▁the', '▁tiny', '▁model', '.'];

const N_EMBD = 384;
const N_HEAD = 4;
const N_FF = 256;
const N_LAYER = 2;
const NOISE = 0.002;

function vocabulary() {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [2, 3, 3];
  const scores = [0, 0, 0];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6);
    scores.push(0);
  }
  const chars = ['▁'];
  for (let c = 0x21; c <= 0x7e; c++) chars.push(String.fromCharCode(c));
  for (const ch of chars) {
    tokens.push(ch);
    types.push(1);
    scores.push(-100);
  }
  for (const w of CHAIN) {
    if (tokens.includes(w)) continue;
    tokens.push(w);
    types.push(1);
    scores.push(-w.length);
  }
  return { tokens, types, scores };
}

function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildTinyModel(): Buffer {
  const { tokens, types, scores } = vocabulary();
  const nVocab = tokens.length;
  if (nVocab > N_EMBD) throw new Error('one-hot embeddings need n_embd >= n_vocab');
  const rand = prng(42);
  const noise = (n: number) => Float32Array.from({ length: n }, () => (rand() * 2 - 1) * NOISE);
  const ones = (n: number) => new Float32Array(n).fill(1);

  const embd = new Float32Array(nVocab * N_EMBD);
  for (let v = 0; v < nVocab; v++) embd[v * N_EMBD + v] = 1;
  const out = noise(nVocab * N_EMBD);
  const id = (t: string) => tokens.indexOf(t);
  const next = (v: number) => {
    const i = CHAIN.indexOf(tokens[v]!);
    if (i === CHAIN.length - 1) return id('</s>');
    return i >= 0 ? id(CHAIN[i + 1]!) : id(CHAIN[0]!);
  };
  for (let v = 0; v < nVocab; v++) out[next(v) * N_EMBD + v] = 1;

  const tensors: Tensor[] = [{ name: 'token_embd.weight', dims: [N_EMBD, nVocab], data: embd }];
  for (let l = 0; l < N_LAYER; l++) {
    const p = `blk.${l}.`;
    tensors.push(
      { name: `${p}attn_norm.weight`, dims: [N_EMBD], data: ones(N_EMBD) },
      { name: `${p}attn_q.weight`, dims: [N_EMBD, N_EMBD], data: noise(N_EMBD * N_EMBD) },
      { name: `${p}attn_k.weight`, dims: [N_EMBD, N_EMBD], data: noise(N_EMBD * N_EMBD) },
      { name: `${p}attn_v.weight`, dims: [N_EMBD, N_EMBD], data: noise(N_EMBD * N_EMBD) },
      { name: `${p}attn_output.weight`, dims: [N_EMBD, N_EMBD], data: noise(N_EMBD * N_EMBD) },
      { name: `${p}ffn_norm.weight`, dims: [N_EMBD], data: ones(N_EMBD) },
      { name: `${p}ffn_gate.weight`, dims: [N_EMBD, N_FF], data: noise(N_EMBD * N_FF) },
      { name: `${p}ffn_up.weight`, dims: [N_EMBD, N_FF], data: noise(N_EMBD * N_FF) },
      { name: `${p}ffn_down.weight`, dims: [N_FF, N_EMBD], data: noise(N_FF * N_EMBD) },
    );
  }
  tensors.push({ name: 'output_norm.weight', dims: [N_EMBD], data: ones(N_EMBD) }, { name: 'output.weight', dims: [N_EMBD, nVocab], data: out });

  const u32 = (v: number): MetaValue => ({ t: 'u32', v });
  const meta: Record<string, MetaValue> = {
    'general.architecture': { t: 'str', v: 'llama' },
    'general.name': { t: 'str', v: 'tiny-test' },
    'general.alignment': u32(32),
    'llama.context_length': u32(2048),
    'llama.embedding_length': u32(N_EMBD),
    'llama.block_count': u32(N_LAYER),
    'llama.feed_forward_length': u32(N_FF),
    'llama.attention.head_count': u32(N_HEAD),
    'llama.attention.head_count_kv': u32(N_HEAD),
    'llama.rope.dimension_count': u32(N_EMBD / N_HEAD),
    'llama.attention.layer_norm_rms_epsilon': { t: 'f32', v: 1e-5 },
    'llama.vocab_size': u32(nVocab),
    'tokenizer.ggml.model': { t: 'str', v: 'llama' },
    'tokenizer.ggml.tokens': { t: 'arr-str', v: tokens },
    'tokenizer.ggml.scores': { t: 'arr-f32', v: scores },
    'tokenizer.ggml.token_type': { t: 'arr-i32', v: types },
    'tokenizer.ggml.unknown_token_id': u32(0),
    'tokenizer.ggml.bos_token_id': u32(1),
    'tokenizer.ggml.eos_token_id': u32(2),
    'tokenizer.ggml.add_bos_token': { t: 'bool', v: true },
    'tokenizer.ggml.add_eos_token': { t: 'bool', v: false },
  };
  return encodeGguf(meta, tensors);
}

/** Writes the tiny model to `file` (creating its folder) and returns the path. */
export function writeTinyModel(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, buildTinyModel());
  return file;
}
