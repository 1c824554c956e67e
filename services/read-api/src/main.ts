import { readApiEnv } from '@memstream/config';
import { createRequestLedger } from '@memstream/fanout';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { openStore } from '@memstream/store';
import { registerReadApi } from './app.js';

await runProcess('read-api', readApiEnv, process.env, async ({ config, log, lifecycle }) => {
  const store = await openStore(config, log);
  lifecycle.defer('store', () => store.close());
  // Without Redis the read API cannot see gateways' accepted markers: a request the converter has
  // not reached yet then reads as unknown until it is stored.
  const ledger = createRequestLedger(config.REDIS_URL, config.REQUEST_STATUS_TTL_SECONDS, log);
  lifecycle.defer('request ledger', () => ledger.close());

  const http = createHttpServer({
    log,
    lifecycle,
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    readinessChecks: [() => store.ping()],
  });
  await registerReadApi(http, { store, ledger });
  await http.listen({ port: config.PORT, host: config.HOST });
  lifecycle.defer('http', () => http.close());
});
