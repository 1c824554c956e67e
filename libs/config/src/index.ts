export { loadConfig, ConfigError, env } from './load-config.js';
export { platformEnv, type PlatformConfig } from './platform-config.js';
export {
  consumerGroupSettings,
  episodeRuleSettings,
  modelSettings,
  requireRedisWithKafka,
  writerSettings,
} from './shared-settings.js';
export { embeddingSettings, type EmbeddingSettings } from './embedding-settings.js';
export { authSettings, authConfigured, listenHostOf, requireAuthOffLoopback } from './auth-settings.js';
