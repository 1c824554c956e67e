export { registerReadApi, readApiDocs, type ReadApiDeps } from './app.js';
