export { registerReadApi, readApiSettingsOf, readApiDocs, type ReadApiDeps } from './app.js';
export { readApiEnv, readApiSettings, type ReadApiConfig } from './config.js';
