import assert from 'node:assert/strict';
import { useCredentials } from '../../harness/credentials.js';
import { call, messagesOf } from '../helpers/evermemos-client.js';
import { getWithBody } from './evermemos-clients-contract.js';

/**
 * EverMemOS's default conversation metadata (January 2026): metadata written with `group_id` null
 * or left out is the default config, which a group without metadata of its own falls back to,
 * for what GET answers and for what shapes its messages. `write` is the gateway, `read` the read
 * API; the server must hold no default config yet.
 */
type Envelope = { status: string; code?: string; message: string; result: Record<string, unknown> };

const META = '/api/v1/memories/conversation-meta';

function defaultConfig(version: string, name: string) {
  return {
    version,
    scene: 'assistant',
    scene_desc: { description: 'what every group starts with' },
    name,
    description: 'the default config',
    group_id: null,
    created_at: '2025-05-01T08:00:00Z',
    default_timezone: 'Asia/Shanghai',
    user_details: {
      ana: { full_name: 'Ana Lima', role: 'user' },
      helper: { full_name: 'Helper Bot', role: 'assistant' },
    },
    tags: ['default'],
  };
}

export async function checkDefaultMeta(write: string, read: string, group: string): Promise<void> {
  const bare = `${group}-bare`;
  const own = `${group}-own`;

  // Nothing to fall back to yet: the same 404s as before the feature.
  assert.equal((await call<Envelope>(read, 'GET', META)).status, 404);
  assert.equal((await call<Envelope>(read, 'GET', `${META}?group_id=${bare}`)).status, 404);
  const noDefault = await call<Envelope>(write, 'PATCH', META, { group_id: null, name: 'x' });
  assert.deepEqual(
    [noDefault.status, noDefault.body.code],
    [404, 'RESOURCE_NOT_FOUND'],
    JSON.stringify(noDefault.body),
  );

  const created = await call<Envelope>(write, 'POST', META, defaultConfig('1.0.0', 'Defaults v1'));
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.deepEqual(
    [created.body.result['group_id'], created.body.result['is_default'], created.body.result['version']],
    [null, true, '1.0.0'],
  );
  // A second POST replaces it in place (EverMemOS upserts by group_id, null included); group_id left out is null.
  const { group_id: _left, ...withoutGroup } = defaultConfig('2.0.0', 'Defaults v2');
  const replaced = await call<Envelope>(write, 'POST', META, withoutGroup);
  assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
  assert.deepEqual(
    [replaced.body.result['id'], replaced.body.result['version'], replaced.body.result['is_default']],
    [created.body.result['id'], '2.0.0', true],
  );

  // GET without a group (or with null in a GET body, as EverMemOS's clients send it): the default itself.
  for (const got of [
    await call<Envelope>(read, 'GET', META),
    await getWithBody<Envelope>(read, META, { group_id: null }),
  ]) {
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.deepEqual(
      [got.body.result['group_id'], got.body.result['is_default'], got.body.result['name']],
      [null, true, 'Defaults v2'],
    );
  }
  // A group without metadata of its own is answered the default, saying so.
  const fallback = await call<Envelope>(read, 'GET', `${META}?group_id=${bare}`);
  assert.equal(fallback.status, 200, JSON.stringify(fallback.body));
  assert.deepEqual(
    [fallback.body.result['group_id'], fallback.body.result['is_default'], fallback.body.result['default_timezone']],
    [null, true, 'Asia/Shanghai'],
  );
  assert.match(fallback.body.message, /default/i);

  // A group with its own metadata gets its own.
  const ownSaved = await call<Envelope>(write, 'POST', META, {
    ...defaultConfig('1.0.0', 'Own group'),
    group_id: own,
    user_details: {},
  });
  assert.equal(ownSaved.status, 200, JSON.stringify(ownSaved.body));
  assert.deepEqual([ownSaved.body.result['group_id'], ownSaved.body.result['is_default']], [own, false]);
  // Posting the group's metadata again replaces it in place (same id), as its metadata suite checks.
  const ownAgain = await call<Envelope>(write, 'POST', META, {
    ...defaultConfig('1.1.0', 'Own group'),
    group_id: own,
    user_details: {},
  });
  assert.deepEqual(
    [ownAgain.status, ownAgain.body.result['id'], ownAgain.body.result['version']],
    [200, ownSaved.body.result['id'], '1.1.0'],
  );
  const ownPeople = await call<Envelope>(write, 'PATCH', META, {
    group_id: own,
    user_details: { bo: { full_name: 'Bo', role: 'user', extra: { level: 10 } } },
  });
  assert.deepEqual([ownPeople.status, ownPeople.body.result['updated_fields']], [200, ['user_details']]);
  const ownGot = await call<Envelope>(read, 'GET', `${META}?group_id=${own}`);
  assert.deepEqual(
    [ownGot.body.result['group_id'], ownGot.body.result['is_default'], ownGot.body.result['name']],
    [own, false, 'Own group'],
  );

  // The default shapes the messages of a group without metadata: its participants' names (not its
  // own name, which is no group's); a group with metadata keeps its own.
  for (const g of [bare, own]) {
    const said = await call<Envelope>(write, 'POST', '/api/v1/memories', {
      group_id: g,
      message_id: 'm1',
      create_time: '2025-05-01T09:00:00Z',
      sender: 'ana',
      content: 'Morning, shall we plan the week?',
    });
    assert.equal(said.status, 200, JSON.stringify(said.body));
  }
  const [bareMessage] = (await messagesOf(read, bare)).memories;
  assert.equal(bareMessage!.sender_name, 'Ana Lima', "the default config's participant names the sender");
  assert.equal(bareMessage!.group_name, undefined, "the default's name is not the group's");
  const [ownMessage] = (await messagesOf(read, own)).memories;
  assert.deepEqual([ownMessage!.sender_name, ownMessage!.group_name], ['ana', 'Own group']);

  // PATCH without a group changes the default; a group without metadata is still a 404, and the
  // default is left alone (EverMemOS would change the default there: a mistyped group would do it).
  const patched = await call<Envelope>(write, 'PATCH', META, { name: 'Defaults v3', tags: ['default', 'patched'] });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.deepEqual([patched.body.result['group_id'], patched.body.result['updated_fields']], [null, ['name', 'tags']]);
  const nullPatched = await call<Envelope>(write, 'PATCH', META, { group_id: null, description: null });
  assert.deepEqual([nullPatched.status, nullPatched.body.result['updated_fields']], [200, []]);
  const stray = await call<Envelope>(write, 'PATCH', META, { group_id: `${group}-stray`, name: 'Typo' });
  assert.equal(stray.status, 404, JSON.stringify(stray.body));
  const after = await call<Envelope>(read, 'GET', META);
  assert.deepEqual([after.body.result['name'], after.body.result['tags']], ['Defaults v3', ['default', 'patched']]);

  // An empty body is no default config: its required fields are missing.
  const empty = await call<Envelope>(write, 'POST', META, {});
  assert.deepEqual([empty.status, empty.body.code], [400, 'INVALID_PARAMETER']);
  // An empty group_id is no group and no default.
  assert.equal((await call<Envelope>(write, 'POST', META, { ...defaultConfig('1', 'x'), group_id: '' })).status, 400);
}

/**
 * With authentication on, the default config is an agent's to set: it shapes every group without
 * metadata, whoever's. A person can neither read it directly nor change it (403), but a group of
 * theirs that falls back to it answers it. `agent` and `person` are request headers.
 */
export async function checkDefaultMetaAccess(
  base: string,
  group: string,
  callers: { agent: Record<string, string>; person: Record<string, string>; personId: string },
): Promise<void> {
  useCredentials(base, callers.person);
  for (const [method, body] of [
    ['POST', defaultConfig('1.0.0', 'Mine now')],
    ['PATCH', { name: 'Mine now' }],
    ['PATCH', { group_id: null, name: 'Mine now' }],
    ['GET', undefined],
  ] as const) {
    const res = await call<Envelope>(base, method, META, body);
    assert.deepEqual(
      [res.status, res.body.status, res.body.code],
      [403, 'failed', 'FORBIDDEN'],
      `${method} ${JSON.stringify(body)}`,
    );
  }

  useCredentials(base, callers.agent);
  assert.equal((await call<Envelope>(base, 'GET', META)).status, 404, "the person's POST stored nothing");
  const set = await call<Envelope>(base, 'POST', META, defaultConfig('1.0.0', 'Set by an agent'));
  assert.equal(set.status, 200, JSON.stringify(set.body));

  // The person's own group (they write to it first, claiming it) falls back to the default.
  useCredentials(base, callers.person);
  const said = await call<Envelope>(base, 'POST', '/api/v1/memories', {
    group_id: group,
    message_id: 'p1',
    create_time: '2025-05-01T09:00:00Z',
    sender: callers.personId,
    content: 'Just me here.',
  });
  assert.equal(said.status, 200, JSON.stringify(said.body));
  const theirs = await call<Envelope>(base, 'GET', `${META}?group_id=${group}`);
  assert.deepEqual([theirs.status, theirs.body.result['is_default']], [200, true], JSON.stringify(theirs.body));
  assert.equal((await call<Envelope>(base, 'GET', META)).status, 403);
  useCredentials(base, callers.agent);
  assert.equal((await call<Envelope>(base, 'GET', META)).body.result['name'], 'Set by an agent');
}
