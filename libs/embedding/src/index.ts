export type { Embedder, EmbeddingPurpose } from './embedder.js';
export { createEmbedder } from './create-embedder.js';
export { createHashEmbedder } from './hash-embedder.js';
export { withTurnContext } from './turn-context.js';
export { createOpenAiEmbedder, type OpenAiEmbedderSettings } from './openai-embedder.js';
export { createLocalEmbedder, type LocalEmbedderSettings } from './local/local-embedder.js';
export { defaultModelDir, resolveModelDir } from './local/model-files.js';
export {
  LOCAL_MODELS,
  localModelId,
  sourceLabel,
  type LocalModel,
  type LocalWeights,
} from './local/local-models.js';
export { installLocalModel, type InstallOptions } from './install/install-local-model.js';
