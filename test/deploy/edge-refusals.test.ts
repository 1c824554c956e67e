import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { API_FAMILIES } from '@memstream/api';
import { defaultErrorShape } from '@memstream/http';
import { EDGE_CONF } from '../../harness/edge.js';
import { parseEdgeConfig } from '../../harness/nginx-conf.js';

const edge = parseEdgeConfig(readFileSync(EDGE_CONF, 'utf8'));
const REFUSED = { code: 'INVALID_PARAMETER', statusCode: 400, message: 'refused' };

/** The keys of a JSON value all the way down, with the values of the fields a client branches on. */
function outline(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return typeof value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, v]) => [key, key === 'code' || key === 'status' ? v : outline(v)]),
  );
}

/** What the edge answers for a request under `path` it refuses itself, as JSON (its time filled in). */
function edgeRefusal(path: string): unknown {
  const body = edge.refusal('POST', path);
  assert.ok(body !== undefined, 'the edge configuration has a map $request for its own refusals');
  return JSON.parse(body.replace('$time_iso8601', '2026-01-01T00:00:00+00:00'));
}

// Longest prefix first, as a request is claimed by the most specific family (the Memory Agent's
// paths sit under EverMemOS's /api/v1, the admin's under memory-service's /v1).
const claims = API_FAMILIES.flatMap((family) => family.paths.map((path) => ({ path, family }))).sort(
  (a, b) => b.path.length - a.path.length,
);

for (const { path, family } of claims) {
  test(`a request under ${path} that nginx refuses itself is answered in ${family.tag}'s error shape`, () => {
    const request = `${path}/%00`;
    const own = family.errorShape(REFUSED, { url: request });
    assert.deepEqual(outline(edgeRefusal(request)), outline(own));
  });
}

test("a path no family claims gets the platform's default error shape", () => {
  assert.deepEqual(outline(edgeRefusal('/elsewhere/%00')), outline(defaultErrorShape(REFUSED, { url: '/elsewhere' })));
});

test('the outline tells two shapes apart (a check that can fail)', () => {
  const kaos = API_FAMILIES.find((family) => family.paths.includes('/memory'))!;
  assert.notDeepEqual(
    outline(edgeRefusal('/v1/conversations/%00')),
    outline(kaos.errorShape(REFUSED, { url: '/memory' })),
  );
});
