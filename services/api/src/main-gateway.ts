import { apiEnv } from './config.js';
import { openApiDeps } from './open-api-deps.js';
import { createBus } from '@memstream/bus';
import { startWriter, writeSettingsOf } from '@memstream/ingest';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { findRequestOutcome, openStore } from '@memstream/store';
import { runApi } from './run-api.js';

/**
 * The ingest gateway: every family's writes. Each is published to Kafka and the call is held until
 * the converter stored it; the store answers the access pre-checks (a refusal costs no event).
 */
await runProcess('ingest-gateway', apiEnv, process.env, async (ctx) => {
  const { config, log, lifecycle, metrics } = ctx;
  const bus = await lifecycle.own(
    'bus',
    () => createBus(config, log, metrics),
    (b) => b.close(),
  );
  await bus.ensureTopics(allTopics());
  const store = await lifecycle.own(
    'store',
    () => openStore(config, log),
    (s) => s.close(),
  );
  const api = await openApiDeps(ctx, store);
  const writer = await lifecycle.own(
    'write path',
    () =>
      startWriter({
        bus,
        fanout: api.fanout,
        ledger: api.ledger,
        lookup: (requestId) => findRequestOutcome(store, requestId),
        settings: writeSettingsOf(config),
        log,
      }),
    (w) => w.stop(),
  );

  await runApi(ctx, 'gateway', { ...api, write: writer.write });
});
