import { apiEnv } from './config.js';
import { openApiDeps } from './open-api-deps.js';
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
  const api = await openApiDeps(ctx, store);
  // Queries are embedded here, with the model the indexer embeds documents with.
  const embedder = await lifecycle.own(
    'embedder',
    () => createEmbedder(config, log),
    (e) => e.close(),
  );

  await runApi(ctx, 'read', { ...api, embedder });
});
