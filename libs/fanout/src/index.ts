import type { Logger } from '@memstream/logging';
import type { Fanout } from './fanout.js';
import { MemoryFanout } from './memory-fanout.js';
import { RedisFanout } from './redis-fanout.js';

export type { Fanout } from './fanout.js';
export { MemoryFanout } from './memory-fanout.js';
export { RedisFanout } from './redis-fanout.js';
export { sentinelOptionsOf } from './redis-connection.js';

/** Redis when REDIS_URL is set, otherwise in-process (the embedded mode). */
export function createFanout(redisUrl: string | undefined, log: Logger): Fanout {
  return redisUrl ? new RedisFanout(redisUrl, log.child({ component: 'fanout' })) : new MemoryFanout();
}
export {
  createRequestLedger,
  RedisRequestLedger,
  MemoryRequestLedger,
  type RequestLedger,
} from './request-ledger.js';
export {
  bytesOf,
  DEFAULT_RESPONSE_LIMITS,
  inProgressLimitOf,
  TOKEN_COST,
  type RecordResult,
  type ResponseEvent,
  type ResponseLimits,
  type ResponseRecorder,
  type ResponseRefusal,
  type ResponseState,
  type ResponseStreams,
} from './response-streams.js';
export { MemoryResponseStreams } from './memory-response-streams.js';
export { RedisResponseStreams } from './redis-response-streams.js';
import type { ResponseLimits, ResponseStreams } from './response-streams.js';
import { MemoryResponseStreams } from './memory-response-streams.js';
import { RedisResponseStreams } from './redis-response-streams.js';

/** The resumer the settings ask for: Redis when REDIS_URL is set, in-process otherwise; none when disabled. */
export function createResponseStreams(
  mode: 'auto' | 'none',
  redisUrl: string | undefined,
  retentionS: number,
  limits: ResponseLimits,
  log: Logger,
): ResponseStreams | undefined {
  if (mode === 'none') return undefined;
  return redisUrl
    ? new RedisResponseStreams(redisUrl, retentionS, limits, log.child({ component: 'response-streams' }))
    : new MemoryResponseStreams(retentionS, limits);
}
