export { runIndexer } from './start-indexer.js';
export { Indexer } from './indexer.js';
export { messageText, memoryText } from './document-text.js';
