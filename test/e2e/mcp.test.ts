import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedMemstream } from '../helpers/embedded.js';
import { waitFor } from '../helpers/infra.js';
import { bearer, userToken } from '../../harness/credentials.js';
import { startServing } from '../../harness/processes.js';
import { AGENT_KEY, AUTH_ENV } from './client/callers.js';
import { httpClient, stdioClient } from './mcp/mcp-clients.js';
import { call, checkRefused, checkTools } from './mcp/tools-contract.js';

/** `memstream-mcp --transport http` as its own process, in front of `memstream`. */
async function mcpOverHttp(t: TestContext, memstream: string): Promise<string> {
  const { base } = await startServing(
    t,
    'services/mcp/src/main.ts',
    { MEMSTREAM_URL: memstream, LOG_LEVEL: 'warn' },
    { args: (port) => ['--transport', 'http', '--port', port] },
  );
  return base;
}

test('MCP over stdio and Streamable HTTP: the SDK client lists the tools and calls each against a server with authentication', async (t: TestContext) => {
  const memstream = await embeddedMemstream(t, AUTH_ENV);
  await t.test('stdio, with the API key from the environment', async (t) =>
    checkTools(await stdioClient(t, { MEMSTREAM_URL: memstream, MEMSTREAM_API_KEY: AGENT_KEY }), 'stdio'),
  );
  await t.test('`memstream mcp` (the CLI) serves the same tools over stdio', async (t) =>
    checkTools(
      await stdioClient(t, { MEMSTREAM_URL: memstream, MEMSTREAM_API_KEY: AGENT_KEY }, [
        'services/cli/src/main.ts',
        'mcp',
      ]),
      'cli',
    ),
  );
  await t.test('stdio, without credentials: every tool says 401', async (t) =>
    checkRefused(await stdioClient(t, { MEMSTREAM_URL: memstream })),
  );

  const mcp = await mcpOverHttp(t, memstream);
  await t.test("HTTP, with the caller's X-API-Key passed through", async (t) =>
    checkTools(await httpClient(t, mcp, { 'x-api-key': AGENT_KEY }), 'http'),
  );
  await t.test("HTTP: the platform's server pieces (request id, readiness, metrics, 405 off POST)", async () => {
    const tools = await fetch(`${mcp}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-request-id': 'mcp-probe-1',
        'x-api-key': AGENT_KEY,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(tools.status, 200);
    assert.equal(tools.headers.get('x-request-id'), 'mcp-probe-1');
    assert.ok(((await tools.json()) as { result: { tools: unknown[] } }).result.tools.length > 0);
    assert.equal((await fetch(`${mcp}/health/ready`)).status, 200);
    // The duration is recorded when the response finishes, which the client may see first.
    await waitFor('the /mcp request in /metrics', async () =>
      /memstream_http_request_duration_seconds_count\{[^}]*route="\/mcp"/.test(
        await (await fetch(`${mcp}/metrics`)).text(),
      ),
    );
    const get = await fetch(`${mcp}/mcp`);
    assert.equal(get.status, 405);
    assert.equal(((await get.json()) as { jsonrpc: string }).jsonrpc, '2.0');
  });
  await t.test('HTTP, without credentials: every tool says 401', async (t) =>
    checkRefused(await httpClient(t, mcp, {})),
  );
  await t.test(
    "HTTP: each request acts as its own caller (a person's token reaches only their conversations)",
    async (t) => {
      const alice = await httpClient(t, mcp, bearer(await userToken('alice')));
      const bob = await httpClient(t, mcp, bearer(await userToken('bob')));
      assert.equal(
        (
          await call(alice, 'add_memory', {
            conversation_id: 'mcp_alice_notes',
            content: 'My locker code is 4242.',
            sender: 'alice',
          })
        ).isError,
        false,
      );
      assert.match((await call(alice, 'get_conversation', { conversation_id: 'mcp_alice_notes' })).text, /4242/);
      assert.equal(
        (await call(bob, 'get_conversation', { conversation_id: 'mcp_alice_notes' })).isError,
        true,
        'bob is not a member',
      );
      assert.equal(
        (await call(alice, 'delete_memory', { conversation_id: 'mcp_alice_notes' })).data['deleted_messages'],
        1,
      );
    },
  );
});

test('MCP against a server without authentication: no credentials needed, over stdio and HTTP', async (t: TestContext) => {
  const memstream = await embeddedMemstream(t);
  await t.test('stdio', async (t) => checkTools(await stdioClient(t, { MEMSTREAM_URL: memstream }), 'open-stdio'));
  const mcp = await mcpOverHttp(t, memstream);
  await t.test('HTTP', async (t) => checkTools(await httpClient(t, mcp, {}), 'open-http'));
});
