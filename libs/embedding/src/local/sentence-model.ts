import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { loadBertTokenizer, padBatch } from './bert-tokenizer.js';
import { readModelShape } from './model-files.js';

export interface SentenceModel {
  readonly dimension: number;
  readonly maxTokens: number;
  /** The batch's vectors back to back (rows × dimension), unit length, and how many texts were cut short. */
  embedBatch(texts: readonly string[]): Promise<{ vectors: Float32Array; truncated: number }>;
  release(): Promise<void>;
}

/**
 * The installed model, loaded: tokenizer plus onnxruntime session. onnxruntime-node's `run` is a
 * synchronous native call (wrapped in a promise), so this is only ever used inside the inference
 * worker, never on a thread that serves requests.
 */
export async function openSentenceModel(modelDir: string, threads: number): Promise<SentenceModel> {
  const { dimension, maxTokens } = await readModelShape(modelDir);
  const tokenizer = await loadBertTokenizer(modelDir, maxTokens);
  const session = await InferenceSession.create(join(modelDir, 'model.onnx'), {
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
      const batch = padBatch(encoded.map((e) => e.ids));
      const dims = [batch.rows, batch.columns];
      const output = await session.run({
        input_ids: new Tensor('int64', batch.inputIds, dims),
        attention_mask: new Tensor('int64', batch.attentionMask, dims),
      });
      const vectors = output.sentence_embedding?.data;
      if (!(vectors instanceof Float32Array) || vectors.length !== batch.rows * dimension) {
        throw new Error('the model returned no sentence_embedding of the expected size');
      }
      // Copied out of onnxruntime's memory, so the worker can hand the buffer over to the main thread.
      return { vectors: vectors.slice(), truncated: encoded.filter((e) => e.truncated).length };
    },
    release: () => session.release(),
  };
}
