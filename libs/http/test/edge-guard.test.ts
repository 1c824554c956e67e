import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createAuthenticator } from '@memstream/auth';
import { createHttpServer } from '@memstream/http';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';

/** A credential-less API process in miniature, answering one public name besides loopback. */
function server(t: TestContext) {
  const log = createLogger({ service: 'test', level: 'silent' });
  const app = createHttpServer({
    log,
    lifecycle: new Lifecycle({ log, shutdownTimeoutMs: 1000 }),
    bodyLimitBytes: 1024,
    metrics: new Metrics(),
    authenticator: createAuthenticator({ apiKeys: [] }),
    edge: {
      publicHosts: ['memstream.example'],
      enforceHost: true,
      bodyIdleTimeoutMs: 1000,
      bodyTimeoutMs: 5000,
      streamBodyIdleTimeoutMs: 5000,
      maxConnectionsPerAddress: 0,
      maxStreamsPerCaller: 1,
    },
  });
  app.get('/data', async () => ({ data: 'the local user reads everything' }));
  t.after(() => app.close());
  return app;
}

test('loopback names and the configured public name are answered; any other Host is refused', async (t) => {
  const app = server(t);
  for (const host of [
    'localhost:8080',
    'LOCALHOST',
    '127.0.0.1:8080',
    '127.1.2.3',
    '[::1]:8080',
    'memstream.example',
  ]) {
    const res = await app.inject({ url: '/data', headers: { host } });
    assert.equal(res.statusCode, 200, host);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', host);
  }
  for (const host of ['attacker.example', 'localhost.attacker.example', '127.0.0.1.nip.io', '[::2]:8080']) {
    const res = await app.inject({ url: '/data', headers: { host } });
    assert.equal(res.statusCode, 403, host);
    assert.doesNotMatch(res.body, /reads everything/, host);
  }
  // probes name a pod by its address
  assert.equal((await app.inject({ url: '/health/live', headers: { host: '10.1.2.3:8080' } })).statusCode, 200);
});

test("a page's Origin must be the server's own, port included, or the public name", async (t) => {
  const app = server(t);
  const call = (host: string, origin: string) => app.inject({ url: '/data', headers: { host, origin } });
  assert.equal((await call('127.0.0.1:8080', 'http://127.0.0.1:8080')).statusCode, 200);
  assert.equal((await call('memstream.example:80', 'http://memstream.example')).statusCode, 200);
  assert.equal((await call('memstream.example', 'https://memstream.example')).statusCode, 200);
  for (const origin of ['http://127.0.0.1:3000', 'http://localhost:8080', 'https://evil.example', 'null', 'file://']) {
    assert.equal((await call('127.0.0.1:8080', origin)).statusCode, 403, origin);
  }
});
