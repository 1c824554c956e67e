export { setupEnv, type SetupConfig } from './config.js';
