import { createFanout, createRequestLedger, createResponseStreams } from '@memstream/fanout';
import type { ProcessContext } from '@memstream/runtime';
import type { Store } from '@memstream/store';
import { apiSettingsOf, responseLimitsOf, type ApiConfig } from './config.js';

/**
 * What every API process opens beside its store, the same way in the gateway, the read API and
 * the embedded mode: the live fan-out, the request ledger and the response streams, each closed
 * with the lifecycle, and the families' settings. What differs by role (the write path, the query
 * embedder) the caller adds: the embedded mode shares its embedder with the indexer.
 */
export async function openApiDeps(ctx: ProcessContext<ApiConfig>, store: Store) {
  const { config, log, lifecycle } = ctx;
  const fanout = await lifecycle.own(
    'fanout',
    () => createFanout(config.REDIS_URL, log),
    (f) => f.close(),
  );
  const ledger = await lifecycle.own(
    'request ledger',
    () => createRequestLedger(config.REDIS_URL, config.REQUEST_STATUS_TTL_SECONDS, log),
    (l) => l.close(),
  );
  const responses = createResponseStreams(
    config.RESPONSE_RESUMER,
    config.REDIS_URL,
    config.RESPONSE_RETENTION_S,
    responseLimitsOf(config),
    log,
  );
  if (responses) lifecycle.defer('response streams', () => responses.close());
  return { store, fanout, ledger, responses, ...apiSettingsOf(config) };
}
