import { platformEnv } from '@memstream/config';
import { createBus } from '@memstream/bus';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { registerGateway } from './app.js';

await runProcess('ingest-gateway', platformEnv, process.env, async ({ config, log, lifecycle }) => {
  const bus = createBus(config, log);
  lifecycle.defer('bus', () => bus.close());
  await bus.ensureTopics(allTopics());

  const http = createHttpServer({ log, lifecycle, bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES });
  await registerGateway(http, { bus });
  await http.listen({ port: config.PORT, host: config.HOST });
  lifecycle.defer('http', () => http.close());
});
