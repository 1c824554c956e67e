export { registerReadApi, readApiSettingsOf, type ReadApiDeps } from './app.js';
