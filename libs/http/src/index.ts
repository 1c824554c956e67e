export { createHttpServer, type HttpServerOptions, type ReadinessCheck } from './create-http-server.js';
export { errorHandlerFor, toPublicError } from './error-handler.js';
export { defaultErrorShape, DefaultErrorBody, type ErrorShape, type PublicError } from './error-shapes/error-shape.js';
export { everMemOsErrorShape, EverMemOsErrorBody } from './error-shapes/evermemos.js';
export { arkErrorShape, ArkErrorBody } from './error-shapes/ark.js';
export { parseOrThrow } from './validation.js';
export { apiFamily, type ApiFamily, type RouteDocs } from './openapi/api-family.js';
export { API_FAMILIES, everMemOsDocs, arkDocs, memoryAgentDocs } from './openapi/families.js';
export type { ApiDocsOptions } from './openapi/api-docs.js';
