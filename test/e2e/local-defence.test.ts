import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { embeddedMemstream } from '../helpers/embedded.js';
import { uniqueName } from '../helpers/infra.js';
import { launchBrowser } from '../../harness/browser.js';

// Issue 49, item 5 and 8: `npm start` without credentials serves loopback only, but a browser on
// the same machine is a loopback client for every site it visits, and a slow client could hold
// sockets for ever. One credential-less embedded server, with short body deadlines and a small
// stream cap so each bound is met quickly.

const EDGE_ENV = {
  HTTP_BODY_IDLE_TIMEOUT_MS: '600',
  HTTP_BODY_TIMEOUT_MS: '2500',
  HTTP_STREAM_BODY_IDLE_TIMEOUT_MS: '1500',
  SSE_MAX_STREAMS_PER_CALLER: '3',
};

const JSON_TYPE = { 'content-type': 'application/json' };

/** One request with exactly these headers (fetch would not let a test set Host). */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: IncomingMessage['headers']; body: string }>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function writeMessage(base: string, group: string, id: string): Promise<void> {
  const res = await fetch(`${base}/api/v1/memories`, {
    method: 'POST',
    headers: JSON_TYPE,
    body: JSON.stringify({
      group_id: group,
      message_id: id,
      create_time: '2025-01-15T10:00:00Z',
      sender: 'local',
      content: 'the local user wrote this',
    }),
  });
  assert.equal(res.status, 200, await res.text());
}

async function erasureCount(base: string): Promise<number> {
  const res = await fetch(`${base}/v1/admin/erasures`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { data?: unknown[] };
  return body.data?.length ?? 0;
}

test('a credential-less server defends itself against pages, foreign hosts and slow clients', async (t) => {
  const base = await embeddedMemstream(t, EDGE_ENV);
  const port = new URL(base).port;
  const group = uniqueName('local-defence');
  await writeMessage(base, group, 'm1');

  await t.test("another origin's body-less POST (a CORS simple request) erases nothing, in Chromium", async () => {
    // A page of another site, as a browser on this machine would load it: it knows the port only.
    const site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>elsewhere</title>');
    });
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    t.after(() => site.close());
    const address = site.address();
    const sitePort = typeof address === 'object' && address ? address.port : 0;
    const browser = await launchBrowser();
    t.after(() => browser.close());
    const page = await browser.page();
    await page.goto(`http://localhost:${sitePort}/`);
    const before = await erasureCount(base);
    const outcome = await page.evaluate(async (target) => {
      // no-cors: the page cannot read the answer, but the request is sent without a preflight
      const res = await fetch(`${target}/v1/me/erasure`, { method: 'POST', mode: 'no-cors' });
      return res.type;
    }, base);
    assert.equal(outcome, 'opaque', 'the request was sent');
    assert.equal(await erasureCount(base), before, 'no erasure was started');
    const kept = await fetch(`${base}/api/v1/memories?group_id=${group}`);
    assert.match(await kept.text(), /the local user wrote this/);

    // The console's own origin still writes, with a JSON body, as its pages do.
    const own = await browser.page();
    await own.goto(`${base}/console/`);
    const status = await own.evaluate(async (g) => {
      const res = await fetch('/api/v1/memories', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          group_id: g,
          message_id: 'from-console',
          create_time: '2025-01-15T10:01:00Z',
          sender: 'local',
          content: 'sent from the console origin',
        }),
      });
      return res.status;
    }, group);
    assert.equal(status, 200);
  });

  await t.test('a foreign Host (DNS rebinding) is refused; loopback names are answered, with nosniff', async () => {
    const path = `/api/v1/memories?group_id=${group}`;
    const foreign = await raw(base, 'GET', path, { host: `attacker.example:${port}` });
    assert.equal(foreign.status, 403);
    assert.doesNotMatch(foreign.body, /local user wrote/);
    assert.equal((await raw(base, 'GET', '/v1/admin/exports', { host: 'attacker.example' })).status, 403);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const ok = await raw(base, 'GET', path, { host });
      assert.equal(ok.status, 200, host);
      assert.equal(ok.headers['x-content-type-options'], 'nosniff', host);
    }
  });

  await t.test(
    'a write without a media type is refused, and so is a body-less one on a route with a body',
    async () => {
      const form = await raw(base, 'POST', '/api/v1/memories', { 'content-type': 'text/plain' }, '{"group_id":"x"}');
      assert.equal(form.status, 400);
      const bare = await raw(base, 'POST', '/v1/me/erasure', {});
      assert.equal(bare.status, 400);
      assert.match(bare.body, /Content-Type/);
      assert.equal(await erasureCount(base), 0);
    },
  );

  // Without the deadlines the sockets stay open for ever: the limit turns that into a failure.
  await t.test(
    'a body that goes silent, or trickles past its deadline, has its connection closed',
    { timeout: 60_000 },
    async () => {
      for (const everyMs of [1500, 150]) {
        const socket = connect(Number(port), '127.0.0.1');
        await once(socket, 'connect');
        socket.write(
          `POST /api/v1/memories HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{`,
        );
        let sent = 1;
        const trickle = setInterval(() => {
          if (!socket.destroyed && socket.writable) {
            socket.write(' ');
            sent += 1;
          }
        }, everyMs);
        socket.on('error', () => undefined);
        socket.resume();
        await once(socket, 'close');
        clearInterval(trickle);
        assert.ok(sent < 1000000, `closed after ${sent} bytes, one every ${everyMs} ms`);
      }
    },
  );

  await t.test(
    'a connection that sends nothing, or stops inside its headers, is closed',
    { timeout: 60_000 },
    async () => {
      for (const start of ['', `GET /api/v1/memories HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`]) {
        const socket = connect(Number(port), '127.0.0.1');
        await once(socket, 'connect');
        socket.on('error', () => undefined);
        socket.resume();
        if (start) socket.write(start);
        await once(socket, 'close');
      }
    },
  );

  await t.test(
    "ARK's relay body outlives the total deadline while chunks come, and is closed once silent",
    { timeout: 60_000 },
    async () => {
      const relay = async (chunks: number, thenSilent: boolean) => {
        const socket = connect(Number(port), '127.0.0.1');
        await once(socket, 'connect');
        let answer = '';
        socket.setEncoding('latin1');
        socket.on('data', (c: string) => (answer += c));
        socket.on('error', () => undefined);
        const session = uniqueName('relay');
        socket.write(
          `POST /stream/${session} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n`,
        );
        let sent = 0;
        const started = Date.now();
        const pace = setInterval(() => {
          if (sent === chunks) {
            clearInterval(pace);
            if (!thenSilent) socket.write('0\r\n\r\n');
            return;
          }
          sent += 1;
          const line = `${JSON.stringify({ id: session, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: `t${sent}` } }] })}\n`;
          socket.write(`${Buffer.byteLength(line).toString(16)}\r\n${line}\r\n`);
        }, 250);
        await once(socket, 'close');
        clearInterval(pace);
        return { answer, elapsedMs: Date.now() - started };
      };
      // 16 chunks a quarter of a second apart: longer than the 2.5 s any other body may take
      const whole = await relay(16, false);
      assert.ok(whole.elapsedMs > 2500, `${whole.elapsedMs} ms`);
      assert.match(whole.answer, /^HTTP\/1\.1 200/);
      assert.match(whole.answer, /"chunks":16/);
      // a relay that stops sending is closed after its own idle timeout, unanswered
      const silent = await relay(2, true);
      assert.equal(silent.answer, '');
    },
  );

  await t.test("one caller's open streams are capped: past the cap 429, and a closed one frees its place", async () => {
    const session = uniqueName('capped');
    const open = async () => {
      const controller = new AbortController();
      const res = await fetch(`${base}/stream/${session}?wait-for-session=true&timeout=5m`, {
        signal: controller.signal,
      });
      return { res, close: () => controller.abort() };
    };
    const held = [await open(), await open(), await open()];
    for (const s of held) assert.equal(s.res.status, 200);
    const refused = await open();
    assert.equal(refused.res.status, 429);
    assert.equal(refused.res.headers.get('retry-after'), '5');
    held[0]!.close();
    // the server learns of the close when the socket ends: wait for its place to free
    for (;;) {
      const again = await open();
      if (again.res.status === 200) {
        again.close();
        break;
      }
      assert.equal(again.res.status, 429);
    }
    for (const s of held.slice(1)) s.close();
  });
});
