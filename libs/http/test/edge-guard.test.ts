import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
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

/**
 * What a proxy streaming a body does (nginx with proxy_request_buffering off): the request's head
 * and the first part of a declared body, then the rest in chunks while the answer comes back,
 * with the connection half-open (its side stays writable after the server's end). The proxy ends
 * its side when told to; the server's socket is followed to its close.
 */
async function refusedWhileStreaming(app: ReturnType<typeof server>, chunks: number, thenEnd: boolean) {
  const { port } = app.server.address() as AddressInfo;
  const serverSide = new Promise<Socket>((resolve) => app.server.once('connection', resolve));
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const errors: string[] = [];
  let received = '';
  let serverEnded = false;
  socket.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
  socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
  socket.on('end', () => (serverEnded = true));
  const write = (b: Buffer) => new Promise<void>((resolve) => socket.write(b, () => resolve()));
  const serverClosed = new Promise<void>((resolve) => void serverSide.then((s) => s.once('close', () => resolve())));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  await write(
    Buffer.from(
      'POST /data HTTP/1.1\r\nHost: attacker.example\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n',
    ),
  );
  await write(Buffer.alloc(64 * 1024, 0x20));
  // the answer comes whole before any more of the body is sent
  await new Promise<void>((resolve) => {
    const whole = () => {
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: *(\d+)/i.exec(received)?.[1]);
      if (end >= 0 && received.length - end - 4 >= length) resolve();
      else socket.once('data', whole);
    };
    whole();
  });
  const answer = received;
  for (let i = 0; i < chunks && !socket.destroyed; i++) {
    await write(Buffer.alloc(32 * 1024, 0x20));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (thenEnd && !socket.destroyed) socket.end();
  await serverClosed;
  // whatever the server's close sent (a FIN, or a reset) has reached the client
  if (!socket.destroyed) await write(Buffer.alloc(1));
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  return { answer, errors, serverEnded };
}

test('an answer to an unread body closes the connection lingering: the rest streamed meanwhile is read, never reset', async (t) => {
  const app = server(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  // 256 KiB more of the body after the answer, then the proxy ends its side on seeing the close
  const streamed = await refusedWhileStreaming(app, 8, true);
  assert.match(streamed.answer, /^HTTP\/1\.1 403/);
  assert.match(streamed.answer, /connection: close/i);
  assert.ok(streamed.serverEnded, 'the server ended its side with a FIN');
  assert.deepEqual(streamed.errors, [], 'no reset while the body was still coming');
  // a peer that neither sends the rest nor closes is closed by the server after LINGER.ms
  const silent = await refusedWhileStreaming(app, 0, false);
  assert.match(silent.answer, /^HTTP\/1\.1 403/);
  assert.ok(silent.serverEnded);
});
