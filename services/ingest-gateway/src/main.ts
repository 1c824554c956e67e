import { listenHostOf } from '@memstream/config';
import { gatewayEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createFanout, createRequestLedger } from '@memstream/fanout';
import { createHttpServer } from '@memstream/http';
import { authSettingsOf, createAuthenticator } from '@memstream/auth';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { startWriter, writeSettingsOf } from '@memstream/ingest';
import { gatewayApiDocs, registerGateway } from './app.js';

await runProcess('ingest-gateway', gatewayEnv, process.env, async ({ config, log, lifecycle, metrics }) => {
  const bus = await lifecycle.own('bus', () => createBus(config, log, metrics), (b) => b.close());
  await bus.ensureTopics(allTopics());
  const fanout = await lifecycle.own('fanout', () => createFanout(config.REDIS_URL, log), (f) => f.close());
  const ledger = await lifecycle.own('request ledger', () => createRequestLedger(config.REDIS_URL, config.REQUEST_STATUS_TTL_SECONDS, log), (l) => l.close());

  const writer = await startWriter({ bus, fanout, ledger, settings: writeSettingsOf(config), log });
  lifecycle.defer('write path', writer.stop);

  const http = createHttpServer({
    log,
    lifecycle,
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    metrics,
    authenticator: createAuthenticator(authSettingsOf(config)),
    openapi: gatewayApiDocs,
  });
  await registerGateway(http, { write: writer.write });
  await http.listen({ port: config.PORT, host: listenHostOf(config) });
  lifecycle.defer('http', () => http.close());
});
