export { runSummarizer, summarizerOf } from './start-summarizer.js';
export { SummaryWorker, type SummarySettings } from './summary-worker.js';
export { summaryWindow } from './window.js';
export { offlineSummarizer } from './summarizers/offline.js';
export { modelSummarizer } from './summarizers/model.js';
export type { Summarizer, SummaryInput } from './summarizers/summarizer.js';
export { summarizerEnv, summarizerSettings, type SummarizerConfig } from './config.js';
