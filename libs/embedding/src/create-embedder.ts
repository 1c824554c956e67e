import type { EmbeddingSettings } from '@memstream/config';
import { AppError } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import type { Embedder } from './embedder.js';
import { createHashEmbedder } from './hash-embedder.js';
import { createLocalEmbedder } from './local/local-embedder.js';
import { LOCAL_MODELS } from './local/local-models.js';
import { resolveModelDir } from './local/model-files.js';
import { createOpenAiEmbedder } from './openai-embedder.js';
import { withTurnContext } from './turn-context.js';

/**
 * Texts sent to the inference thread at a time. A search's query waits for the batch already
 * running: int8 runs texts one by one anyway, so a small batch costs only a message between
 * threads per 4 texts and cuts that wait to a few milliseconds; float32 pads a batch into one
 * inference, where 16 still saves a little per text.
 */
const LOCAL_BATCH = { int8: 4, float32: 16 } as const;

/** The embedder the settings ask for, ready to use (a local model loaded, an openai server probed). */
export async function createEmbedder(settings: EmbeddingSettings, log: Logger): Promise<Embedder> {
  const embedder = await providerEmbedder(settings, log);
  return settings.EMBEDDING_TURN_CONTEXT === 'previous' ? withTurnContext(embedder) : embedder;
}

async function providerEmbedder(settings: EmbeddingSettings, log: Logger): Promise<Embedder> {
  switch (settings.EMBEDDING_PROVIDER) {
    case 'hash':
      return createHashEmbedder({ dimension: settings.EMBEDDING_DIMENSIONS ?? 256 });
    case 'openai':
      return createOpenAiEmbedder(
        {
          baseUrl: settings.EMBEDDING_BASE_URL ?? settings.OPENAI_BASE_URL,
          apiKey: settings.EMBEDDING_API_KEY ?? settings.OPENAI_API_KEY,
          model: settings.EMBEDDING_MODEL ?? 'text-embedding-3-small',
          dimensions: settings.EMBEDDING_DIMENSIONS,
          batchSize: settings.EMBEDDING_BATCH_SIZE ?? 64,
          timeoutMs: settings.EMBEDDING_TIMEOUT_MS,
          maxRetries: settings.EMBEDDING_MAX_RETRIES,
        },
        log,
      );
    case 'local': {
      const model = LOCAL_MODELS[settings.EMBEDDING_LOCAL_MODEL];
      // Refused rather than ignored: a setting that silently does nothing is a bug report later.
      if (
        settings.EMBEDDING_MODEL !== undefined &&
        settings.EMBEDDING_MODEL.toLowerCase() !== model.name.toLowerCase()
      ) {
        throw new AppError(
          'SYSTEM_ERROR',
          `EMBEDDING_PROVIDER=local runs the model EMBEDDING_LOCAL_MODEL names (${model.name}), not ${settings.EMBEDDING_MODEL}`,
        );
      }
      if (settings.EMBEDDING_DIMENSIONS !== undefined && settings.EMBEDDING_DIMENSIONS !== model.dimension) {
        throw new AppError(
          'SYSTEM_ERROR',
          `${model.name} makes ${model.dimension}-dimensional vectors, not ${settings.EMBEDDING_DIMENSIONS}`,
        );
      }
      return createLocalEmbedder(
        {
          model,
          modelDir: resolveModelDir(settings.MEMSTREAM_MODEL_DIR, model),
          threads: settings.EMBEDDING_THREADS,
          batchSize: settings.EMBEDDING_BATCH_SIZE ?? LOCAL_BATCH[settings.EMBEDDING_LOCAL_WEIGHTS],
          weights: settings.EMBEDDING_LOCAL_WEIGHTS,
        },
        log,
      );
    }
  }
}
