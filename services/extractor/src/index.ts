export { runExtractor, extractionModelOf } from './start-extractor.js';
export { EpisodeWorker, type EpisodeSettings } from './episode-worker.js';
export { offlineExtractor } from './extractors/offline.js';
export { modelExtractor } from './extractors/model.js';
export type { Extractor, ExtractionInput } from './extractors/extractor.js';
export { extractorEnv, extractorSettings, type ExtractorConfig } from './config.js';
