import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { loadBertTokenizer, padBatch, type PaddedBatch } from './bert-tokenizer.js';
import type { LocalModel } from './local-models.js';

export interface SentenceModel {
  readonly dimension: number;
  readonly maxTokens: number;
  /** The batch's vectors back to back (rows × dimension), unit length, and how many texts were cut short. */
  embedBatch(texts: readonly string[]): Promise<{ vectors: Float32Array; truncated: number }>;
  release(): Promise<void>;
}

/**
 * Padded tokens one float32 inference may hold (rows × longest row). onnxruntime's arena keeps the
 * working memory of the largest inference it ran, and attention's grows with rows × tokens²: 16
 * texts of 256 tokens grew the process by ~75 MiB (with either graph), 4 of them by ~20 MiB, and
 * ran no slower per text (14.4 against 10.2 ms a text, measured with int8 weights before it ran
 * texts one by one). Short texts, the common case, still go 16 at a time.
 */
const MAX_BATCH_TOKENS = 1024;

/**
 * Consecutive runs [from, to) of items whose count × longest length stays within `budget`; an
 * item longer than the budget alone is a run of its own.
 */
export function runsWithin(lengths: readonly number[], budget: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let from = 0;
  let longest = 0;
  for (let i = 0; i < lengths.length; i++) {
    const next = Math.max(longest, lengths[i]!);
    if (i > from && next * (i - from + 1) > budget) {
      runs.push([from, i]);
      from = i;
      longest = lengths[i]!;
    } else {
      longest = next;
    }
  }
  if (lengths.length > from) runs.push([from, lengths.length]);
  return runs;
}

/**
 * The installed model, loaded (`graph` names the file). With `oneTextPerRun` each text is a run of
 * its own: an int8 graph (ours, and e5-small-v2's) quantizes activations with one scale per run,
 * so in a batch a text's vector would depend on its neighbours; alone it is the same whatever else
 * is embedded, and on all-MiniLM-L6-v2 a run of one costs little more per text (1.4 against 1.1 ms
 * for a 25-token turn, less for long texts, which waste nothing on padding). onnxruntime-node's `run` is a
 * synchronous native call (wrapped in a promise), so this is only ever used inside the inference
 * worker, never on a thread that serves requests.
 */
export async function openSentenceModel(
  modelDir: string,
  model: LocalModel,
  graph: string,
  threads: number,
  oneTextPerRun: boolean,
): Promise<SentenceModel> {
  const { dimension, maxTokens } = model;
  const tokenizer = await loadBertTokenizer(modelDir, maxTokens);
  const session = await InferenceSession.create(join(modelDir, graph), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // The CPU arena and memory patterns stay on (onnxruntime's defaults). Off, a process embedding
    // alone on its main thread kept 10-35 MiB after a batch of 16 texts of 256 tokens instead of
    // ~160, for 5% more CPU; but in the running server, with a database and the event loop
    // allocating beside this thread, every run's allocations and frees fragmented glibc's heaps:
    // 400 writes of long texts peaked at 670-750 MiB against 447-475 with the arena on.
    // Idle pool threads spin by default, waiting for work. On a small machine shared with the
    // event loop and a database that burned half a core more per text (measured with 2 threads
    // under load) and made inference slower, not faster.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  return {
    dimension,
    maxTokens,
    async embedBatch(texts) {
      const encoded = texts.map((text) => tokenizer.encode(text));
      const out = new Float32Array(texts.length * dimension);
      const runs = oneTextPerRun
        ? encoded.map((_, i): [number, number] => [i, i + 1])
        : runsWithin(
            encoded.map((e) => e.ids.length),
            MAX_BATCH_TOKENS,
          );
      for (const [from, to] of runs) {
        const batch = padBatch(encoded.slice(from, to).map((e) => e.ids));
        const dims = [batch.rows, batch.columns];
        const output = await session.run({
          input_ids: new Tensor('int64', batch.inputIds, dims),
          attention_mask: new Tensor('int64', batch.attentionMask, dims),
          ...(model.tokenTypeIds ? { token_type_ids: new Tensor('int64', batch.tokenTypeIds, dims) } : {}),
        });
        const data = output[model.output]?.data;
        const expected = batch.rows * dimension * (model.output === 'last_hidden_state' ? batch.columns : 1);
        if (!(data instanceof Float32Array) || data.length !== expected) {
          throw new Error(`the model returned no ${model.output} of the expected size`);
        }
        const vectors = model.output === 'last_hidden_state' ? meanPooled(data, batch, dimension) : data;
        // Copied out of onnxruntime's memory, so the worker can hand the buffer over to the main thread.
        out.set(vectors, from * dimension);
      }
      return { vectors: out, truncated: encoded.filter((e) => e.truncated).length };
    },
    release: () => session.release(),
  };
}

/**
 * Token states [rows, columns, dimension] to one unit vector a row: the mean over the row's real
 * tokens (padding masked out), then L2-normalised, with sentence-transformers' clamps.
 */
export function meanPooled(states: Float32Array, batch: PaddedBatch, dimension: number): Float32Array {
  const out = new Float32Array(batch.rows * dimension);
  const sum = new Float64Array(dimension);
  for (let r = 0; r < batch.rows; r++) {
    sum.fill(0);
    let count = 0;
    for (let c = 0; c < batch.columns; c++) {
      if (batch.attentionMask[r * batch.columns + c] === 0n) continue;
      count++;
      const at = (r * batch.columns + c) * dimension;
      for (let d = 0; d < dimension; d++) sum[d] = sum[d]! + states[at + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dimension; d++) {
      sum[d] = sum[d]! / Math.max(count, 1e-9);
      norm += sum[d]! * sum[d]!;
    }
    norm = Math.max(Math.sqrt(norm), 1e-12);
    for (let d = 0; d < dimension; d++) out[r * dimension + d] = sum[d]! / norm;
  }
  return out;
}
