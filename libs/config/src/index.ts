export { loadConfig, ConfigError, env } from './load-config.js';
export { platformEnv, type PlatformConfig } from './platform-config.js';
export { converterEnv, allInOneEnv, type ConverterConfig, type AllInOneConfig } from './service-env.js';
