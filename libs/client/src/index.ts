export { MemstreamClient } from './client.js';
export { MemstreamError, type Family } from './errors.js';
export type { ClientOptions, CallOptions } from './http.js';
export { EverMemOs, isAccepted, type WriteOptions } from './evermemos.js';
export { Ark, type ArkStreamEvent, type StreamOptions } from './ark.js';
export { MemoryAgent } from './memory-agent.js';
export {
  MemoryService,
  UserConversations,
  CodeConversations,
  AgentConversations,
  type ResponseEvent,
} from './memory-service.js';
export { Kaos } from './kaos.js';
export { Platform, parsePrometheusText, type MetricSample } from './platform.js';
export { Admin } from './admin.js';
export { ConsoleReads } from './console.js';
export { ROUTES } from './routes.js';
export { servedByGateway, type Route, type RouteInput } from './route.js';
export { parseSseFrame, sseFrames, type SseFrame } from './sse.js';
export type * from './responses.js';
export { DEFAULT_RETRY, retryAfterMs } from './retry.js';
export { RetriesExhausted, backoffDelayMs, withRetry, type Attempt, type RetryOptions } from '@memstream/retry';
