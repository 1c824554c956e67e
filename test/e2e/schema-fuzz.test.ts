import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedMemstream, healthy } from '../helpers/embedded.js';
import { runCaptured } from '../../harness/processes.js';
import { TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

const AGENT_KEY = 'fuzz-agent-key-0123456789abcdef';
const EXAMPLES = process.env['FUZZ_MAX_EXAMPLES'] ?? '8';

/**
 * Schemathesis, a property-based fuzzer that reads OpenAPI, against the embedded server built
 * from the same openapi.json we publish: as a person (JWT) and as an agent (API key), with NUL
 * bytes allowed in generated strings, valid and invalid inputs alike. No answer may be a 5xx,
 * every answer must have a status the document lists, and the media type and body it documents
 * for that status (errors in the family's shape); the server must be healthy after.
 */
// People and agents meet the admin API's refusal; an admin client (AUTH_ADMIN_CLIENTS) gets past it,
// so its run fuzzes what the admin routes validate and do (only those: the rest it shares with agents).
const CALLERS = [
  { as: 'person', label: 'every operation in openapi.json, as a person' },
  { as: 'agent', label: 'every operation in openapi.json, as an agent' },
  { as: 'admin', label: 'the admin operations, as an admin client' },
] as const;

for (const { as, label } of CALLERS) {
  test(`schema fuzzing of ${label}: no 5xx, only documented statuses and bodies`, async (t: TestContext) => {
    const setup = await runCaptured('bash', ['scripts/fuzz/schemathesis.sh']);
    assert.equal(setup.code, 0, setup.stderr);
    const st = setup.stdout.trim();
    const base = await embeddedMemstream(t, {
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      AUTH_API_KEYS: `fuzzer:${AGENT_KEY}`,
      ...(as === 'admin' ? { AUTH_ADMIN_CLIENTS: 'fuzzer' } : {}),
    });
    const credentials =
      as === 'person' ? `Authorization: Bearer ${await userToken('fuzz-person')}` : `X-API-Key: ${AGENT_KEY}`;
    const reports = await mkdtemp(join(tmpdir(), 'memstream-fuzz-'));
    const run = await runCaptured(
      st,
      [
        'run',
        'openapi.json',
        '--url',
        base,
        '-H',
        credentials,
        // A resumed response is followed live until its recorder ends it, which the fuzzer never
        // does: each such GET waited out the 30 s request timeout, 75-135 s of the run. Its
        // parameters are still tried by test/e2e/conformance.test.ts (the coverage phase), and
        // its behaviour is tested in memory-service.test.ts.
        ...(as === 'admin'
          ? ['--include-path-regex', '^/v1/admin']
          : ['--exclude-name', 'GET /v1/conversations/{conversationId}/response']),
        '--checks',
        'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
        '--mode',
        'all',
        '--max-examples',
        EXAMPLES,
        '--seed',
        '20261124',
        '--generation-allow-x00',
        'true',
        // "AST constructor recursion depth mismatch", raised inside hypothesis, is a race in
        // Python 3.11's ast.parse between threads (its recursion count was shared; CPython
        // gh-106905, fixed in 3.11.8, and these machines run 3.11.7). With two workers it crashed
        // the coverage phase, and once the fuzzing phase in CI: an error of the fuzzer that says
        // nothing of the server. One worker parses alone. The coverage phase stays off (the
        // slowest; the other two phases reach every operation).
        '--phases',
        'examples,fuzzing',
        '--workers',
        '1',
        '--request-timeout',
        '30',
        '--suppress-health-check',
        'all',
        '--no-color',
        '--report',
        'junit',
        '--report-junit-path',
        join(reports, 'junit.xml'),
      ],
      { env: { ...process.env, SCHEMATHESIS_HOOKS: '' } },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    const summary = output
      .split('\n')
      .filter((l) => /test cases|operations|passed|failed|errors?|Seed/i.test(l))
      .slice(-8)
      .join('\n');
    t.diagnostic(summary);
    // The failures come first in schemathesis's output (each with a curl line to replay it), the summary last.
    const failures = output.indexOf('FAILURES');
    assert.equal(run.code, 0, failures >= 0 ? output.slice(failures, failures + 8000) : output.slice(-8000));
    const junit = await readFile(join(reports, 'junit.xml'), 'utf8');
    assert.match(junit, /<testsuite[^>]*tests="[1-9]/, 'operations were exercised');
    assert.ok(await healthy(base), 'the server is healthy after the fuzzing');
  });
}

/** Bodies a generator rarely makes, sent to a write of every family: each gets a 4xx in that family's error shape. */
test('hostile bodies (NUL, unpaired surrogates, invalid UTF-8, 10,000 levels of nesting, 11 MB) get a 4xx in each family error shape', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { AUTH_API_KEYS: `fuzzer:${AGENT_KEY}` });
  const families: Array<[string, string, (body: Record<string, unknown>) => boolean]> = [
    ['EverMemOS', '/api/v1/memories', (b) => b['status'] === 'failed' && typeof b['code'] === 'string'],
    ['ARK', '/messages', (b) => typeof b['error'] === 'string' && typeof b['code'] === 'string'],
    ['ARK stream', '/stream/s1', (b) => typeof b['error'] === 'string' && typeof b['code'] === 'string'],
    [
      'memory-service',
      '/v1/conversations',
      (b) =>
        typeof b['error'] === 'string' &&
        typeof b['code'] === 'string' &&
        b['code'] === b['code'].toString().toLowerCase(),
    ],
    ['KAOS', '/memory/sessions', (b) => typeof b['detail'] === 'string' && typeof b['code'] === 'string'],
    [
      'Memory Agent',
      '/api/v1/summaries',
      (b) => typeof (b['error'] as Record<string, unknown> | undefined)?.['message'] === 'string',
    ],
  ];
  let deep = '"x"';
  for (let i = 0; i < 10_000; i++) deep = `[${deep}]`;
  const bodies: Array<[string, string | Buffer]> = [
    [
      'NUL in a value',
      '{"group_id": "g\\u0000", "session_id": "s", "title": "t\\u0000", "app_name": "a\\u0000", "messages": [{"role": "user", "content": "\\u0000"}]}',
    ],
    ['NUL in a key', '{"k\\u0000": 1}'],
    [
      'an unpaired surrogate',
      '{"group_id": "\\ud800", "title": "\\udc00", "app_name": "\\ud800", "session_id": "\\ud800"}',
    ],
    ['invalid UTF-8', Buffer.concat([Buffer.from('{"title": "'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')])],
    ['10,000 levels of nesting', `{"title": ${deep}, "messages": ${deep}}`],
    ['11 MB', `{"title": "${'x'.repeat(11 * 1024 * 1024)}"}`],
  ];
  for (const [family, path, shaped] of families) {
    for (const [what, body] of bodies) {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': AGENT_KEY },
        body,
      });
      const text = await res.text();
      assert.ok(
        res.status >= 400 && res.status < 500,
        `${family} ${path}, ${what}: ${res.status} ${text.slice(0, 200)}`,
      );
      assert.ok(
        shaped(JSON.parse(text) as Record<string, unknown>),
        `${family} ${path}, ${what}: not its error shape: ${text.slice(0, 200)}`,
      );
    }
  }
  // Every one of them was refused, so none left anything behind, in any family.
  const read = async (path: string) =>
    (await fetch(`${base}${path}`, { headers: { 'x-api-key': AGENT_KEY } })).json() as Promise<Record<string, unknown>>;
  assert.deepEqual(
    ((await read('/v1/conversations')) as { data: unknown[] }).data,
    [],
    'no memory-service conversation',
  );
  assert.deepEqual(((await read('/memory/sessions')) as { sessions: unknown[] }).sessions, [], 'no KAOS session');
  assert.deepEqual(((await read('/messages?session_id=s1')) as { messages: unknown[] }).messages, [], 'no ARK message');
  assert.deepEqual(
    ((await read('/sessions')) as { sessions: unknown[] }).sessions,
    [],
    'no ARK session or stream chunk',
  );
  assert.ok(await healthy(base));
});
