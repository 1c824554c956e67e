export { runIndexer } from './start-indexer.js';
export { Indexer } from './indexer.js';
export { memoryText } from './document-text.js';
export { indexerEnv, indexerSettings, type IndexerConfig } from './config.js';
