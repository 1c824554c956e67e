export { startEmbedded } from './start-embedded.js';
export { allInOneEnv, type AllInOneConfig } from './config.js';
