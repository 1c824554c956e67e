export { createHttpServer, type HttpServerOptions, type ReadinessCheck } from './create-http-server.js';
export { serveProbes } from './serve-probes.js';
export { serveApi } from './serve-api.js';
export { errorHandlerFor, toPublicError } from './error-handler.js';
export { defaultErrorShape, DefaultErrorBody, type ErrorShape, type PublicError } from './error-shapes/error-shape.js';
export { parseOrThrow } from './validation.js';
export { readGetJsonBody, queryWithGetBody } from './get-json-body.js';
export { apiFamily, type ApiFamily, type MediaAnswer, type RouteDocs } from './openapi/api-family.js';
export { serverSentEvent } from './openapi/server-sent-event.js';
export { jsonSchemaOf, requestSchemaOf } from './openapi/json-schema.js';
export type { ApiDocsOptions } from './openapi/api-docs.js';
export { principalOf, assertAuthenticated, writeOriginOf } from './authentication.js';
export { unstorablePath, unstorableError } from './storable-json.js';
export { jsonValueError } from './json-value-check.js';
export { serveStatic, type StaticSiteOptions } from './serve-static.js';
export {
  zodSerializerCompiler,
  zodValidatorCompiler,
  type ZodApp,
  type ZodTypeProvider,
} from './openapi/zod-provider.js';
export { holdStream } from './caller-caps.js';
