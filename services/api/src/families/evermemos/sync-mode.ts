import { SyncModeQuery } from '@memstream/schemas';
import { parseOrThrow } from '@memstream/http';

export { SyncModeQuery };

/** `?sync_mode=false` answers once the broker has the write; the default waits for the store. */
export function syncModeOf(query: unknown): boolean {
  return parseOrThrow(SyncModeQuery, query ?? {}, 'query').sync_mode;
}
