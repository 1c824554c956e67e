export { startEmbedded } from './start-embedded.js';
export { embeddedApiDocs, registerEmbeddedApi } from './embedded-api.js';
