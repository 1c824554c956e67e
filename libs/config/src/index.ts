export { loadConfig, ConfigError, env } from './load-config.js';
export { platformEnv, type PlatformConfig } from './platform-config.js';
export {
  gatewayEnv,
  converterEnv,
  readApiEnv,
  allInOneEnv,
  type GatewayConfig,
  type ConverterConfig,
  type ReadApiConfig,
  type AllInOneConfig,
} from './service-env.js';
