import { allInOneEnv } from '@memstream/config';
import { createBus } from '@memstream/bus';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { registerGateway } from '@memstream/ingest-gateway';
import { registerReadApi } from '@memstream/read-api';
import { runConverter } from '@memstream/converter';

/**
 * The embedded mode: gateway, consumers and read API in one process on one port. With nothing
 * configured it uses the in-process bus and PGlite under DATA_DIR; set KAFKA_BROKERS or
 * DATABASE_URL and the same process uses those instead. This is the one composition root that
 * may import other services (the arrow lint allows it and nothing else).
 */
await runProcess('all-in-one', allInOneEnv, process.env, async ({ config, log, lifecycle }) => {
  const store = await openStore(config, log);
  lifecycle.defer('store', () => store.close());
  const bus = createBus(config, log);
  lifecycle.defer('bus', () => bus.close());
  await bus.ensureTopics(allTopics());

  await runConverter(config, { bus, store, lifecycle });

  const http = createHttpServer({
    log,
    lifecycle,
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    readinessChecks: [() => store.ping()],
  });
  await registerGateway(http, { bus });
  await registerReadApi(http, { store });
  await http.listen({ port: config.PORT, host: config.HOST });
  lifecycle.defer('http', () => http.close());
  log.info({ port: config.PORT, bus: bus.kind, store: store.kind }, 'memstream listening');
});
