import { DEFAULT_LOCAL_EMBEDDING_MODEL, LOCAL_EMBEDDING_MODELS, type LocalEmbeddingModel } from '@memstream/config';
import { LOCAL_MODELS, resolveModelDir } from '@memstream/embedding';

/**
 * Where `npm ci` put a model, by the installer's rule (scripts/install-model.ts): MEMSTREAM_MODEL_DIR
 * holds the model EMBEDDING_LOCAL_MODEL names when it is set, every other model is in its default
 * folder. Only a test, never library code, reads the env.
 */
export function installedDir(key: LocalEmbeddingModel): string {
  const configured = process.env.MEMSTREAM_MODEL_DIR?.trim() || undefined;
  const selected = process.env.EMBEDDING_LOCAL_MODEL?.trim().toLowerCase() || DEFAULT_LOCAL_EMBEDDING_MODEL;
  const chosen = (LOCAL_EMBEDDING_MODELS as readonly string[]).includes(selected) ? selected : undefined;
  return resolveModelDir(chosen === key ? configured : undefined, LOCAL_MODELS[key]);
}
