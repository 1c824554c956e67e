export { registerReadApi, type ReadApiDeps } from './app.js';
