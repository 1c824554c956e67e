export { loadConfig, ConfigError, env } from './load-config.js';
export { platformEnv, type PlatformConfig } from './platform-config.js';
export {
  gatewayEnv,
  converterEnv,
  readApiEnv,
  summarizerEnv,
  allInOneEnv,
  extractorEnv,
  indexerEnv,
  type ExtractorConfig,
  type IndexerConfig,
  setupEnv,
  type GatewayConfig,
  type ConverterConfig,
  type ReadApiConfig,
  type SummarizerConfig,
  type AllInOneConfig,
  type SetupConfig,
} from './service-env.js';
export { embeddingSettings, type EmbeddingSettings } from './embedding-settings.js';
export { authSettings, authConfigured, listenHostOf } from './auth-settings.js';
