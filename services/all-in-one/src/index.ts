export { startEmbedded } from './start-embedded.js';
