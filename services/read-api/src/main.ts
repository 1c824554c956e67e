import { platformEnv } from '@memstream/config';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { openStore } from '@memstream/store';
import { registerReadApi } from './app.js';

await runProcess('read-api', platformEnv, process.env, async ({ config, log, lifecycle }) => {
  const store = await openStore(config, log);
  lifecycle.defer('store', () => store.close());

  const http = createHttpServer({
    log,
    lifecycle,
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    readinessChecks: [() => store.ping()],
  });
  await registerReadApi(http, { store });
  await http.listen({ port: config.PORT, host: config.HOST });
  lifecycle.defer('http', () => http.close());
});
