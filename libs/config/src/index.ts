export { loadConfig, ConfigError, env } from './load-config.js';
export { platformEnv, type PlatformConfig } from './platform-config.js';
export {
  gatewayEnv,
  converterEnv,
  readApiEnv,
  summarizerEnv,
  allInOneEnv,
  setupEnv,
  type GatewayConfig,
  type ConverterConfig,
  type ReadApiConfig,
  type SummarizerConfig,
  type AllInOneConfig,
  type SetupConfig,
} from './service-env.js';
