import { apiEnv, apiSettingsOf } from './config.js';
import { createFanout, createRequestLedger, createResponseStreams } from '@memstream/fanout';
import { runProcess } from '@memstream/runtime';
import { openStore } from '@memstream/store';
import { createEmbedder } from '@memstream/embedding';
import { runApi } from './run-api.js';

/** The read API: every family's reads, from the store and the live fan-out. It never publishes. */
await runProcess('read-api', apiEnv, process.env, async (ctx) => {
  const { config, log, lifecycle } = ctx;
  const store = await lifecycle.own(
    'store',
    () => openStore(config, log),
    (s) => s.close(),
  );
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
  // Queries are embedded here, with the model the indexer embeds documents with.
  const embedder = await lifecycle.own(
    'embedder',
    () => createEmbedder(config, log),
    (e) => e.close(),
  );
  const responses = createResponseStreams(config.RESPONSE_RESUMER, config.REDIS_URL, config.RESPONSE_RETENTION_S, log);
  if (responses) lifecycle.defer('response streams', () => responses.close());

  await runApi(ctx, 'read', { store, ledger, fanout, embedder, responses, ...apiSettingsOf(config) });
});
