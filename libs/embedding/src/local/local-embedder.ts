import { AppError } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import { batches } from '../batches.js';
import type { Embedder } from '../embedder.js';
import { startInferenceWorker, type InferenceWorker } from './inference-worker-client.js';
import { localModelId, type LocalModel, type LocalWeights } from './local-models.js';
import { checkInstalledModel } from './model-files.js';
import { TurnQueue } from './turn-queue.js';

export interface LocalEmbedderSettings {
  /** Which model (an entry of LOCAL_MODELS). */
  readonly model: LocalModel;
  readonly modelDir: string;
  /** onnxruntime's intra-op threads for one batch. */
  readonly threads: number;
  /** Texts per inference batch. */
  readonly batchSize: number;
  /** Which of the model's graphs runs (see LocalModel.graphs). */
  readonly weights: LocalWeights;
}

/**
 * A local model (see LOCAL_MODELS) in process, from the files `npm ci` installed: nothing is
 * downloaded here. Its int8 graph by default, or the float32 one where it has one (see
 * EMBEDDING_LOCAL_WEIGHTS). A model trained with instructions gets its query or document prefix
 * before each text here, by the purpose the caller gives, so callers never know about them.
 * Inference runs on a worker thread (it would block the event loop otherwise), one batch at a
 * time. Each call queues its next batch only when the previous one is back, so concurrent calls
 * take turns batch by batch, and `query` batches go before `document` ones: a search waits for at
 * most the one batch already running, not for a whole import.
 *
 * Texts are batched shortest first, so each batch pads to a length close to its own texts'.
 * A text past the model's token limit (256 for all-MiniLM-L6-v2, roughly 200 English words; 512
 * for e5-small-v2) is embedded from its first tokens, as sentence-transformers does; callers that
 * embed long documents should chunk them first.
 */
export async function createLocalEmbedder(settings: LocalEmbedderSettings, log: Logger): Promise<Embedder> {
  // Checked now, though loading waits for the first call: a misconfigured process should fail at
  // start-up, not on its first search. Sizes only; a corrupt file shows when the model loads.
  const { model } = settings;
  const graph = model.graphs[settings.weights];
  if (graph === undefined) {
    throw new AppError('SYSTEM_ERROR', `${model.name} comes with ${Object.keys(model.graphs).join(', ')} weights only`);
  }
  const problem = await checkInstalledModel(settings.modelDir, model, { hashes: false });
  if (problem !== undefined) {
    throw new AppError(
      'SYSTEM_ERROR',
      `${problem}. \`npm ci\` installs the local embedding model (or \`npm run model:install\`); or set EMBEDDING_PROVIDER=openai or hash`,
    );
  }
  const { dimension, maxTokens } = model;
  // The model (the process grows by about 90 MiB with the int8 graph, 160 with float32: weights,
  // onnxruntime and its thread) loads on the first call, never at start: a process that does not
  // embed, or not yet, holds none of it. Concurrent first calls share the
  // one load; a load that failed is tried again by the next call.
  let current: Promise<InferenceWorker> | undefined;
  const worker = (): Promise<InferenceWorker> =>
    (current ??= startInferenceWorker(
      {
        modelDir: settings.modelDir,
        model,
        graph,
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
            model: model.name,
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
    model: localModelId(model, settings.weights),
    dimension,
    async embed(texts, purpose) {
      if (closed) throw new AppError('SYSTEM_ERROR', 'embedder closed');
      const prefix = model.prefixes[purpose];
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const out = new Array<Float32Array>(texts.length);
      for (const batch of batches(order, settings.batchSize)) {
        const { vectors, truncated } = await turns.run(purpose === 'query', async () =>
          (await worker()).embed(batch.map((i) => prefix + texts[i]!)),
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
