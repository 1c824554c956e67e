import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { EDGE_CONF, localEdgeConf } from '../../harness/edge.js';
import { parseEdgeConfig } from '../../harness/nginx-conf.js';

// The tests' nginx runs the shipped edge configuration with only its addresses changed: if more
// changed, the distributed-mode tests would check a routing that production does not have.
const shipped = readFileSync(EDGE_CONF, 'utf8');
const services = { 'ingest-gateway': 'http://127.0.0.1:41001', 'read-api': 'http://127.0.0.1:41002' };

test("the tests' edge configuration is the shipped one with only the upstream servers, the listen address and the log files changed", () => {
  const local = localEdgeConf(shipped, services, 41003, '/tmp/edge-logs');
  const before = shipped.split('\n');
  const after = local.split('\n');
  assert.equal(after.length, before.length);
  const changed = after.flatMap((line, i) => (line === before[i] ? [] : [line.trim()]));
  assert.deepEqual(changed.sort(), [
    'access_log /tmp/edge-logs/access.log memstream_edge;',
    'error_log /tmp/edge-logs/error.log crit;',
    'listen 127.0.0.1:41003;',
    'server 127.0.0.1:41001;',
    'server 127.0.0.1:41002;',
  ]);

  const config = parseEdgeConfig(local);
  assert.deepEqual(config.listen, ['127.0.0.1:41003']);
  assert.deepEqual(config.upstreams.get('ingest_gateway'), ['127.0.0.1:41001']);
  assert.deepEqual(config.upstreams.get('read_api'), ['127.0.0.1:41002']);
});

test('an edge host with no address given, or an address for a host the edge never names, is refused', () => {
  assert.throws(
    () => localEdgeConf(shipped, { 'ingest-gateway': services['ingest-gateway'] }, 41003, '/tmp/edge-logs'),
    /upstream host read-api/,
  );
  assert.throws(
    () => localEdgeConf(shipped, { ...services, 'read-api-2': 'http://127.0.0.1:41004' }, 41003, '/tmp/edge-logs'),
    /read-api-2/,
  );
});
