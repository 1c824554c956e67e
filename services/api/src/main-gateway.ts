import { apiEnv, apiSettingsOf } from './config.js';
import { createBus } from '@memstream/bus';
import { createFanout, createRequestLedger, createResponseStreams } from '@memstream/fanout';
import { startWriter, writeSettingsOf } from '@memstream/ingest';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
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
  // Recording a memory-service response is a write: its tokens go to the response streams.
  const responses = createResponseStreams(config.RESPONSE_RESUMER, config.REDIS_URL, config.RESPONSE_RETENTION_S, log);
  if (responses) lifecycle.defer('response streams', () => responses.close());
  const writer = await lifecycle.own(
    'write path',
    () => startWriter({ bus, fanout, ledger, settings: writeSettingsOf(config), log }),
    (w) => w.stop(),
  );

  await runApi(ctx, 'gateway', { store, ledger, fanout, write: writer.write, responses, ...apiSettingsOf(config) });
});
