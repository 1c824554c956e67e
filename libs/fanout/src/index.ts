import type { Logger } from '@memstream/logging';
import type { Fanout } from './fanout.js';
import { MemoryFanout } from './memory-fanout.js';
import { RedisFanout } from './redis-fanout.js';

export type { Fanout } from './fanout.js';
export { MemoryFanout } from './memory-fanout.js';
export { RedisFanout } from './redis-fanout.js';

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
