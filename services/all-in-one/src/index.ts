export { startEmbedded } from './start-embedded.js';
export { embeddedApiDocs, registerEmbeddedApi } from './embedded-api.js';
export { allInOneEnv, type AllInOneConfig } from './config.js';
