export { loadConfig, ConfigError, env } from './load-config.js';
export { platformEnv, type PlatformConfig } from './platform-config.js';
export {
  consumerGroupIdsOf,
  consumerGroupSettings,
  episodeRuleSettings,
  modelSettings,
  requireRedisWithKafka,
  writerSettings,
} from './shared-settings.js';
export {
  embeddingSettings,
  DEFAULT_LOCAL_EMBEDDING_MODEL,
  LOCAL_EMBEDDING_MODELS,
  type EmbeddingSettings,
  type LocalEmbeddingModel,
} from './embedding-settings.js';
export { authSettings, authConfigured, listenHostOf, requireAuthOffLoopback } from './auth-settings.js';
export { httpEdgeSettings } from './http-edge-settings.js';
