import { AppError } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import { batches } from '../batches.js';
import type { Embedder } from '../embedder.js';
import { startInferenceWorker, type InferenceWorker } from './inference-worker-client.js';
import {
  checkInstalledModel,
  GRAPH_FILES,
  LOCAL_MODEL_NAME,
  localModelId,
  readModelShape,
  type LocalWeights,
} from './model-files.js';
import { TurnQueue } from './turn-queue.js';

export interface LocalEmbedderSettings {
  readonly modelDir: string;
  /** onnxruntime's intra-op threads for one batch. */
  readonly threads: number;
  /** Texts per inference batch. */
  readonly batchSize: number;
  /** Which of the installed graphs runs (see GRAPH_FILES). */
  readonly weights: LocalWeights;
}

/**
 * all-MiniLM-L6-v2 in process, from the files `npm ci` installed: nothing is downloaded here.
 * Its int8 graph by default, or the float32 one (see EMBEDDING_LOCAL_WEIGHTS).
 * Inference runs on a worker thread (it would block the event loop otherwise), one batch at a
 * time. Each call queues its next batch only when the previous one is back, so concurrent calls
 * take turns batch by batch, and `query` batches go before `document` ones: a search waits for at
 * most the one batch already running, not for a whole import.
 *
 * Texts are batched shortest first, so each batch pads to a length close to its own texts'.
 * A text past 256 tokens (roughly 200 English words) is embedded from its first 256 tokens, as
 * sentence-transformers does; callers that embed long documents should chunk them first.
 */
export async function createLocalEmbedder(settings: LocalEmbedderSettings, log: Logger): Promise<Embedder> {
  // Checked now, though loading waits for the first call: a misconfigured process should fail at
  // start-up, not on its first search. Sizes only; a corrupt file shows when the model loads.
  const problem = await checkInstalledModel(settings.modelDir, { hashes: false });
  if (problem !== undefined) {
    throw new AppError(
      'SYSTEM_ERROR',
      `${problem}. \`npm ci\` installs the local embedding model (or \`npm run model:install\`); or set EMBEDDING_PROVIDER=openai or hash`,
    );
  }
  const { dimension, maxTokens } = await readModelShape(settings.modelDir);
  // The model (the process grows by about 90 MiB with the int8 graph, 160 with float32: weights,
  // onnxruntime and its thread) loads on the first call, never at start: a process that does not
  // embed, or not yet, holds none of it. Concurrent first calls share the
  // one load; a load that failed is tried again by the next call.
  let current: Promise<InferenceWorker> | undefined;
  const worker = (): Promise<InferenceWorker> =>
    (current ??= startInferenceWorker(
      {
        modelDir: settings.modelDir,
        graph: GRAPH_FILES[settings.weights],
        threads: settings.threads,
        oneTextPerRun: settings.weights === 'int8',
      },
      (reason) => {
        log.error({ reason }, 'embedding worker stopped; the next call starts another');
        current = undefined;
      },
    ).then(
      (started) => {
        log.info(
          {
            model: LOCAL_MODEL_NAME,
            weights: settings.weights,
            dimension,
            maxTokens,
            threads: settings.threads,
            modelDir: settings.modelDir,
          },
          'local embedding model loaded',
        );
        return started;
      },
      (err: unknown) => {
        current = undefined;
        const reason = err instanceof Error ? err.message : String(err);
        throw new AppError(
          'SYSTEM_ERROR',
          `could not load the local embedding model from ${settings.modelDir}: ${reason}`,
          { cause: err },
        );
      },
    ));
  const turns = new TurnQueue();
  let closed = false;

  return {
    model: localModelId(settings.weights),
    dimension,
    async embed(texts, purpose) {
      if (closed) throw new AppError('SYSTEM_ERROR', 'embedder closed');
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const out = new Array<Float32Array>(texts.length);
      for (const batch of batches(order, settings.batchSize)) {
        const { vectors, truncated } = await turns.run(purpose === 'query', async () =>
          (await worker()).embed(batch.map((i) => texts[i]!)),
        );
        if (truncated > 0)
          log.debug({ truncated, maxTokens }, 'texts past the token limit were embedded from their beginning');
        batch.forEach((index, row) => {
          out[index] = vectors.slice(row * dimension, (row + 1) * dimension);
        });
      }
      return out;
    },
    async close() {
      closed = true;
      const running = await current?.catch(() => undefined);
      await running?.close();
    },
  };
}
