import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { bearer, TEST_JWT_SECRET, useCredentials, userToken } from '../../../harness/credentials.js';
import { uniqueName } from '../../../test/helpers/infra.js';
import {
  REPO_ROOT,
  allMessages,
  conversationMeta,
  memstream,
  memstreamWithEnv,
  startEmbeddedService,
  summaryOf,
  tempDir,
  type CliRun,
} from './cli-helpers.js';

const EXAMPLE = resolve(REPO_ROOT, 'examples/group-chat.json');
const LOCOMO = resolve(REPO_ROOT, '../shared/data/locomo-dev.json');

/** The example file under a group id of its own, so each import below starts from an unused conversation. */
/** The example file in another group; with `sender`, every message is that person's (a person imports only their own words). */
async function exampleAs(
  t: TestContext,
  groupId: string,
  sender?: string,
): Promise<{ path: string; messageIds: string[] }> {
  const file = JSON.parse(await readFile(EXAMPLE, 'utf8')) as {
    conversation_meta: { group_id: string };
    conversation_list: Array<{ message_id: string; sender: string }>;
  };
  file.conversation_meta.group_id = groupId;
  if (sender !== undefined) for (const m of file.conversation_list) m.sender = sender;
  const path = join(await tempDir(t, 'memstream-auth-'), `${groupId}-${sender ?? 'as-written'}.json`);
  await writeFile(path, JSON.stringify(file));
  return { path, messageIds: file.conversation_list.map((m) => m.message_id) };
}

function failureLines(run: CliRun): string[] {
  return run.stderr.split('\n').filter((l) => l.startsWith('failed: '));
}

test('importing into a server with authentication', async (t: TestContext) => {
  const key = `key-${randomBytes(24).toString('hex')}`;
  const base = await startEmbeddedService(t, { AUTH_API_KEYS: `importer:${key}`, AUTH_JWT_SECRET: TEST_JWT_SECRET });
  // What the checks below read with; the CLI gets only what each run is given.
  useCredentials(base, { 'x-api-key': key });
  const secrets = [key];
  const runs: CliRun[] = [];
  const run = async (env: Record<string, string>, ...args: string[]) => {
    const done = await memstreamWithEnv(env, ...args);
    runs.push(done);
    return done;
  };

  await t.test(
    'without credentials the import stops at the first 401, says authentication is needed, and sends nothing',
    async () => {
      const none = await run(
        {},
        'import',
        '--input',
        LOCOMO,
        '--format',
        'locomo',
        '--api-url',
        base,
        '--concurrency',
        '1',
      );
      assert.equal(none.code, 3, none.stderr);
      assert.match(
        none.stderr,
        /the import stopped \(HTTP 401 UNAUTHENTICATED: [^)]*\): the server requires authentication; give an agent's API key \(--api-key or MEMSTREAM_API_KEY\) or a user's token \(--token or MEMSTREAM_TOKEN\)/,
      );
      assert.doesNotMatch(none.stderr, /gave up after/, 'a 401 is not retried');
      const summary = summaryOf(none);
      assert.deepEqual(summary, { ...summary, sent: 0, failed: summary['messages'] });
      // Four conversations, one at a time: after the first refusal the others are not even tried.
      const failures = failureLines(none);
      assert.equal(failures.length, 4, none.stderr);
      assert.ok(
        failures.every((l) => / messages not sent: import stopped, the server refused access \(HTTP 401 /.test(l)),
        none.stderr,
      );
      assert.equal((await conversationMeta(base, 'locomo-conv-26')).status, 404);
    },
  );

  await t.test(
    'a key the server does not know (MEMSTREAM_API_KEY) stops the import as a failed authentication',
    async () => {
      const wrong = `key-${randomBytes(24).toString('hex')}`;
      secrets.push(wrong);
      const { path } = await exampleAs(t, uniqueName('auth-wrong-key'));
      const refused = await run({ MEMSTREAM_API_KEY: wrong }, 'import', '--input', path, '--api-url', base);
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(
        refused.stderr,
        /HTTP 401 UNAUTHENTICATED: The API key is not valid\): authentication failed, the server did not accept the API key given/,
      );
    },
  );

  await t.test(
    'a credential that cannot be a header value is refused before anything is sent, without quoting it',
    async () => {
      const broken = await run({}, 'import', '--input', EXAMPLE, '--api-url', base, '--api-key', `${key}\nsecond line`);
      assert.equal(broken.code, 1, broken.stderr);
      assert.match(
        broken.stderr,
        /--api-key must be one word of printable ASCII characters \(the value is not shown\)/,
      );
    },
  );

  await t.test('with --api-key every message is stored', async () => {
    const groupId = uniqueName('auth-key');
    const { path, messageIds } = await exampleAs(t, groupId);
    const imported = await run({}, 'import', '--input', path, '--api-url', base, '--api-key', key);
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(summaryOf(imported), {
      ...summaryOf(imported),
      sent: messageIds.length,
      stored: messageIds.length,
      failed: 0,
    });
    assert.deepEqual(
      (await allMessages(base, groupId)).map((m) => m.message_id),
      messageIds,
    );
  });

  await t.test(
    'a person imports with MEMSTREAM_TOKEN into a new conversation; another person is refused it (403), even with an agent key exported beside --token',
    async () => {
      const alice = await userToken('alice');
      const bob = await userToken('bob');
      secrets.push(alice, bob);
      const groupId = uniqueName('auth-alice');
      const { path, messageIds } = await exampleAs(t, groupId, 'alice');

      const hers = await run({ MEMSTREAM_TOKEN: alice }, 'import', '--input', path, '--api-url', base);
      assert.equal(hers.code, 0, hers.stderr);
      useCredentials(base, bearer(alice));
      assert.deepEqual(
        (await allMessages(base, groupId)).map((m) => m.message_id),
        messageIds,
        'alice reads what she imported',
      );

      // The exported key would be let in (agents reach every conversation); the flag replaces it.
      const bobs = await exampleAs(t, groupId, 'bob');
      const his = await run(
        { MEMSTREAM_API_KEY: key },
        'import',
        '--input',
        bobs.path,
        '--api-url',
        base,
        '--token',
        bob,
      );
      assert.equal(his.code, 3, his.stderr);
      assert.match(
        his.stderr,
        /the import stopped \(HTTP 403 FORBIDDEN: Conversation \S+ belongs to someone else[^)]*\): the server knows who is calling but refused them this conversation/,
      );
      assert.equal(summaryOf(his)['sent'], 0);
    },
  );

  await t.test('no credential appears in anything the CLI printed', () => {
    assert.equal(runs.length, 6);
    for (const { stdout, stderr } of runs) {
      for (const secret of secrets) {
        assert.ok(
          !stdout.includes(secret) && !stderr.includes(secret),
          `a credential was printed:\n${stdout}\n${stderr}`,
        );
      }
    }
  });
});

test('--kafka refuses --api-key and --token: the broker takes no credentials', async () => {
  const run = await memstream('import', '--input', EXAMPLE, '--kafka', '127.0.0.1:1', '--token', 'some.jwt.value');
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /--api-key and --token are for --api-url/);
  assert.doesNotMatch(run.stderr, /some\.jwt\.value/);
});
