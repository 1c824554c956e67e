import { z } from 'zod';
import { parseOrThrow } from '@memstream/http';

export const SyncModeQuery = z
  .object({
    sync_mode: z
      .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
      .default('true')
      .transform((v) => v === 'true' || v === '1')
      .meta({ description: 'false answers 202 once the broker has the write, instead of waiting for the store' }),
  })
  .loose();

/** `?sync_mode=false` answers once the broker has the write; the default waits for the store. */
export function syncModeOf(query: unknown): boolean {
  return parseOrThrow(SyncModeQuery, query ?? {}, 'query').sync_mode;
}
