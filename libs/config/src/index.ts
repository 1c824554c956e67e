export { loadConfig, ConfigError, env } from './load-config.js';
export { platformEnv, type PlatformConfig } from './platform-config.js';
