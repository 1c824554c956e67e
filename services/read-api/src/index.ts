export { registerReadApi, readApiSettingsOf, readApiDocs, type ReadApiDeps } from './app.js';
