import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startEdge } from '../../harness/edge.js';
import { waitFor } from '../helpers/infra.js';

// The edge is the one process in front of every family, so whatever it logs, it logs of everyone.
// Its upstreams here are closed ports: every request fails upstream, which is when nginx writes the
// most (an access line and, at its default level, an error line quoting the request). Ports below
// 1024 that no service uses: a port freePort() handed out could be bound by another test meanwhile.
test("the edge's logs name a request's method and path, never its query string", async (t) => {
  const edge = await startEdge({
    'ingest-gateway': 'http://127.0.0.1:1',
    'read-api': 'http://127.0.0.1:2',
  });
  t.after(() => edge.close());

  const secret = 'marmalade-7f3c';
  const res = await fetch(`${edge.base}/api/v1/memories/search?query=${secret}&user_id=person-${secret}`);
  await res.arrayBuffer();
  assert.equal(res.status, 502, 'no service listens behind this edge');

  const accessLog = join(edge.logDir, 'access.log');
  const line = await waitFor('the access log line of the search', async () => {
    if (!existsSync(accessLog)) return undefined;
    return readFileSync(accessLog, 'utf8')
      .split('\n')
      .find((l) => l.includes('/api/v1/memories/search'));
  });
  assert.match(line, /"GET \/api\/v1\/memories\/search" 502 /);
  assert.ok(!line.includes(secret), `the access line holds the query: ${line}`);

  const errorLog = join(edge.logDir, 'error.log');
  const errors = existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '';
  assert.ok(!errors.includes(secret), `the error log holds the query: ${errors}`);
});
