import { z } from 'zod';
import { parseOrThrow } from '@memstream/http';

const Query = z
  .object({
    sync_mode: z
      .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
      .default('true')
      .transform((v) => v === 'true' || v === '1'),
  })
  .loose();

/** `?sync_mode=false` answers once the broker has the write; the default waits for the store. */
export function syncModeOf(query: unknown): boolean {
  return parseOrThrow(Query, query ?? {}, 'query').sync_mode;
}
