export { createHttpServer, type HttpServerOptions, type ReadinessCheck } from './create-http-server.js';
export { errorHandlerFor, toPublicError } from './error-handler.js';
export { defaultErrorShape, type ErrorShape, type PublicError } from './error-shapes/error-shape.js';
export { everMemOsErrorShape } from './error-shapes/evermemos.js';
export { arkErrorShape } from './error-shapes/ark.js';
export { parseOrThrow } from './validation.js';
