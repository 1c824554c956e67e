export type { Embedder, EmbeddingPurpose } from './embedder.js';
export { createEmbedder } from './create-embedder.js';
export { createHashEmbedder } from './hash-embedder.js';
export { createOpenAiEmbedder, type OpenAiEmbedderSettings } from './openai-embedder.js';
export { createLocalEmbedder, type LocalEmbedderSettings } from './local/local-embedder.js';
export {
  defaultModelDir,
  resolveModelDir,
  localModelId,
  LOCAL_MODEL_NAME,
  PINNED_WHEEL,
  type LocalWeights,
} from './local/model-files.js';
export { installLocalModel, type InstallOptions } from './install/install-local-model.js';
