import { gatewayEnv } from './gateway-config.js';
import { createBus } from '@memstream/bus';
import { createFanout, createRequestLedger } from '@memstream/fanout';
import { serveApi } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { startWriter, writeSettingsOf } from '@memstream/ingest';
import { gatewayApiDocs, registerGateway } from './gateway.js';

await runProcess('ingest-gateway', gatewayEnv, process.env, async (ctx) => {
  const { config, log, lifecycle, metrics } = ctx;
  const bus = await lifecycle.own(
    'bus',
    () => createBus(config, log, metrics),
    (b) => b.close(),
  );
  await bus.ensureTopics(allTopics());
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
  const writer = await lifecycle.own(
    'write path',
    () => startWriter({ bus, fanout, ledger, settings: writeSettingsOf(config), log }),
    (w) => w.stop(),
  );

  await serveApi(ctx, { openapi: gatewayApiDocs, register: (app) => registerGateway(app, { write: writer.write }) });
});
