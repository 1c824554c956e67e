import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { waitFor } from '../helpers/infra.js';
import { scrape, total, type Sample } from '../helpers/prometheus.js';

/**
 * Issue 26's edge: every write the HTTP layer accepts is processed whole (stored, indexed,
 * summarized; never dead-lettered by a consumer), and every input it refuses is refused before
 * anything is published, with a 4xx in the family's own error shape. Both checks run as an agent
 * (API key), which may write and read every conversation.
 */
export type Credentials = Record<string, string>;

/** The lengths the id rule admits that the derived ids used to outgrow (190+), and the edges. */
export const ID_LENGTHS = [1, 100, 190, 200, 246, 255] as const;

// Characters the rule admits that a path or a key must encode: '/', ':', '%', '?', '#', space, dots, non-ASCII.
const ALPHABET = ['t', '/', 'a', ':', 'b', ' ', '.', 'é', '%', '?', '#', '+', '😀', 'z'];

/** An id of exactly `length` UTF-16 units starting with `lead`, full of characters that need encoding. */
export function idOf(lead: string, length: number, alphabet: readonly string[] = ALPHABET): string {
  let id = lead.slice(0, length);
  for (let i = 0; id.length < length; i++) {
    const c = alphabet[i % alphabet.length]!;
    id += id.length + c.length <= length ? c : 'x';
  }
  return id;
}

const seg = encodeURIComponent;

async function call(
  base: string,
  credentials: Credentials,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...credentials, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined
      ? {}
      : { body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are checked field by field
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** Dead letters counted by every consumer of the processes at `bases`, and records published to input topics. */
export async function busTotals(
  bases: readonly string[],
): Promise<{ deadLetters: number; toDlq: number; published: number }> {
  const samples: Sample[] = (await Promise.all(bases.map(scrape))).flat();
  const produced = samples.filter((s) => s.name === 'memstream_bus_produced_records_total');
  return {
    deadLetters: total(samples, 'memstream_consumer_dead_letters_total'),
    toDlq: produced.filter((s) => s.labels['topic']?.endsWith('.dlq')).reduce((sum, s) => sum + s.value, 0),
    published: produced.filter((s) => s.labels['topic']?.startsWith('ingest.')).reduce((sum, s) => sum + s.value, 0),
  };
}

interface Written {
  readonly family: string;
  readonly token: string;
  /** The conversation the message is in; for KAOS learned from the search hit. */
  conversation?: string;
}

/**
 * Writes one message through each family per id length (KAOS also with an agent name and a
 * session id of 255 characters each, its largest ordering key), then waits until each is found
 * by the EverMemOS search as an indexed hit (not a pending message) and has a completed summary,
 * with no dead letter anywhere. EverMemOS messages go to `gateway` (`base` unless said);
 * `metricsBases` are the processes whose consumers count dead letters.
 */
export async function checkEveryIdLength(
  base: string,
  credentials: Credentials,
  metricsBases: readonly string[],
  { gateway = base, lengths = ID_LENGTHS }: { gateway?: string; lengths?: readonly number[] } = {},
): Promise<void> {
  const written: Written[] = [];
  for (const n of lengths) {
    const token = (family: string) => `kw${family}${n}q`;

    const group = idOf('E', n);
    const ever = await call(gateway, credentials, 'POST', '/api/v1/memories', {
      group_id: group,
      message_id: 'm1',
      create_time: '2026-01-02T03:04:05Z',
      sender: 'ann',
      content: `said ${token('ever')}`,
    });
    assert.equal(ever.status, 200, `EverMemOS group_id of ${n}: ${JSON.stringify(ever.body)}`);
    written.push({ family: `EverMemOS ${n}`, token: token('ever'), conversation: group });

    const session = idOf('A', n);
    const ark = await call(base, credentials, 'POST', '/messages', {
      session_id: session,
      messages: [{ role: 'user', content: `said ${token('ark')}` }],
    });
    assert.equal(ark.status, 200, `ARK session_id of ${n}: ${JSON.stringify(ark.body)}`);
    written.push({ family: `ARK ${n}`, token: token('ark'), conversation: session });

    const conversation = idOf('M', n);
    const ms = await call(base, credentials, 'POST', `/v1/conversations/${seg(conversation)}/messages`, {
      content: [{ type: 'text', text: `said ${token('ms')}` }],
    });
    assert.equal(ms.status, 201, `memory-service conversation id of ${n}: ${JSON.stringify(ms.body)}`);
    written.push({ family: `memory-service ${n}`, token: token('ms'), conversation });

    // Agent names travel in a header: ASCII only, with the characters the key encodes.
    const agent = idOf('K', n, ['k', ':', '%', '.', '-']);
    await writeKaos(base, credentials, agent, idOf('S', n), token('kaos'));
    written.push({ family: `KAOS ${n}`, token: token('kaos') });
  }
  // KAOS's largest key: both parts at the limit, each character of them one the key encodes.
  await writeKaos(base, credentials, ':'.repeat(255), `%${':'.repeat(254)}`, 'kwkaoswidestq');
  written.push({ family: 'KAOS widest key', token: 'kwkaoswidestq' });

  for (const w of written) {
    w.conversation = await waitFor(
      `${w.family}: its message indexed`,
      async () => {
        const found = await call(base, credentials, 'POST', '/api/v1/memories/search', {
          query: w.token,
          retrieve_method: 'keyword',
          memory_types: ['message'],
          ...(w.conversation === undefined ? {} : { group_id: w.conversation }),
        });
        assert.equal(found.status, 200, JSON.stringify(found.body));
        const hit = (found.body.result.memories as Array<{ group_id: string; content: string }>).find((m) =>
          m.content.includes(w.token),
        );
        return hit?.group_id;
      },
      90_000,
    );
    await waitFor(
      `${w.family}: a completed summary`,
      async () => {
        const rows = await call(base, credentials, 'GET', `/api/v1/summaries?conversation_id=${seg(w.conversation!)}`);
        assert.equal(rows.status, 200, JSON.stringify(rows.body));
        return (rows.body.summaries as Array<{ status: string }>).some((r) => r.status === 'completed');
      },
      90_000,
    );
  }
  const totals = await busTotals(metricsBases);
  assert.equal(totals.deadLetters, 0, 'no consumer dead-lettered anything');
  assert.equal(totals.toDlq, 0, 'nothing was published to a .dlq topic');
}

async function writeKaos(
  base: string,
  credentials: Credentials,
  agent: string,
  session: string,
  token: string,
): Promise<void> {
  const headers = { 'x-kaos-agent': agent };
  const created = await call(
    base,
    credentials,
    'POST',
    '/memory/sessions',
    { session_id: session, user_id: 'ann' },
    headers,
  );
  assert.equal(
    created.status,
    201,
    `KAOS session (agent ${agent.length}, session ${session.length}): ${JSON.stringify(created.body)}`,
  );
  const added = await call(
    base,
    credentials,
    'POST',
    `/memory/sessions/${seg(session)}/events`,
    { event_type: 'user_message', content: `said ${token}` },
    headers,
  );
  assert.equal(
    added.status,
    201,
    `KAOS event (agent ${agent.length}, session ${session.length}): ${JSON.stringify(added.body)}`,
  );
}

type Family = 'EverMemOS' | 'ARK' | 'memory-service' | 'KAOS' | 'default' | 'unclaimed';

/** Each family's error body, told apart from the others. */
const SHAPED: Record<Family, (b: any) => boolean> = {
  // eslint-disable-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
  EverMemOS: (b) =>
    b?.status === 'failed' && typeof b.code === 'string' && typeof b.message === 'string' && typeof b.path === 'string',
  ARK: (b) => typeof b?.error === 'string' && /^[A-Z_]+$/.test(b.code) && Object.keys(b).length === 2,
  'memory-service': (b) => typeof b?.error === 'string' && /^[a-z_]+$/.test(b.code),
  KAOS: (b) => typeof b?.detail === 'string' && typeof b.code === 'string',
  default: (b) => typeof b?.error?.code === 'string' && typeof b.error.message === 'string',
  // a path of no family: ARK's text, which its reference tests compare, beside our code and message
  unclaimed: (b) => b?.error === 'Not found' && typeof b.code === 'string' && typeof b.message === 'string',
};

interface Probe {
  readonly what: string;
  readonly family: Family;
  readonly method: string;
  /** Sent byte for byte (no URL normalization: `..` and `%2E` arrive as written). */
  readonly path: string;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  /** The status expected; any 4xx when absent. */
  readonly status?: number;
  /** What the answer must name (the field or key at fault). */
  readonly names?: RegExp;
}

/** One request over a plain socket, so the path is not normalized the way fetch's URL parser would. */
export function raw(base: string, credentials: Credentials, probe: Probe): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: probe.method,
        path: probe.path,
        headers: {
          ...credentials,
          ...(probe.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...probe.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', (err) => resolve({ status: 0, text: `answer cut: ${err.message}` }));
      },
    );
    // A server that drops the connection instead of answering is a failure to report, like any other answer.
    req.on('error', (err) => resolve({ status: 0, text: `no answer: ${err.message}` }));
    req.end(probe.body);
  });
}

const json = (value: unknown) => JSON.stringify(value);
const message = (extra: Record<string, unknown>) =>
  json({ message_id: 'm1', create_time: '2026-01-02T03:04:05Z', sender: 'ann', content: 'hostile', ...extra });

/** Ids the rule refuses, as JSON string values, with what each is. */
const BAD_IDS: Array<[string, string]> = [
  ['blank', ' \t '],
  ['"."', '.'],
  ['".."', '..'],
  ['a control character', 'a\u0007b'],
  ['NUL', 'a\u0000b'],
  ['an unpaired surrogate', 'a\ud800b'],
  ['256 characters', 'x'.repeat(256)],
];

/** The same ids in a path, percent-encoded as a client would send them. */
const BAD_PATH_IDS: Array<[string, string]> = [
  ['blank', '%20%09'],
  ['"."', '.'],
  ['".." encoded', '%2E%2E'],
  ['a control character', 'a%07b'],
  ['NUL', 'a%00b'],
  ['256 characters', 'x'.repeat(256)],
];

export function probes(): Probe[] {
  const list: Probe[] = [];
  for (const [what, id] of BAD_IDS) {
    list.push({
      what: `EverMemOS group_id ${what}`,
      family: 'EverMemOS',
      method: 'POST',
      path: '/api/v1/memories',
      body: message({ group_id: id }),
      status: 400,
    });
    list.push({
      what: `ARK session_id ${what}`,
      family: 'ARK',
      method: 'POST',
      path: '/messages',
      body: json({ session_id: id, messages: [{ role: 'user', content: 'hostile' }] }),
      status: 400,
    });
    list.push({
      what: `KAOS session_id ${what}`,
      family: 'KAOS',
      method: 'POST',
      path: '/memory/sessions',
      body: json({ session_id: id }),
      status: 400,
    });
  }
  for (const [what, id] of BAD_PATH_IDS) {
    list.push({
      what: `memory-service conversation id ${what}`,
      family: 'memory-service',
      method: 'POST',
      path: `/v1/conversations/${id}/messages`,
      body: json({ content: ['hostile'] }),
      status: 400,
    });
    list.push({
      what: `ARK stream session ${what}`,
      family: 'ARK',
      method: 'POST',
      path: `/stream/${id}`,
      body: json({ token: 'hostile' }),
      status: 400,
    });
    list.push({
      what: `KAOS path session ${what}`,
      family: 'KAOS',
      method: 'POST',
      path: `/memory/sessions/${id}/events`,
      body: json({ event_type: 'user_message', content: 'hostile' }),
      // `.` and `..` can never name a session: KAOS's clients get its missing-session answer.
      status: id === '.' || id === '%2E%2E' ? 404 : 400,
    });
  }
  list.push(
    {
      what: 'KAOS agent name ".."',
      family: 'KAOS',
      method: 'POST',
      path: '/memory/sessions',
      body: json({ session_id: 's' }),
      headers: { 'x-kaos-agent': '..' },
      status: 400,
    },
    {
      what: 'KAOS agent name of 256 characters',
      family: 'KAOS',
      method: 'POST',
      path: '/memory/sessions',
      body: json({ session_id: 's' }),
      headers: { 'x-kaos-agent': 'k'.repeat(256) },
      status: 400,
    },
    {
      what: 'KAOS event list naming one event_id twice',
      family: 'KAOS',
      method: 'POST',
      path: '/memory/sessions/hostile/events',
      headers: { 'x-kaos-agent': 'hostile-agent' },
      body: json([
        { event_type: 'user_message', content: 'one', event_id: 'dup' },
        { event_type: 'agent_response', content: 'two', event_id: 'dup' },
      ]),
      status: 400,
      names: /1\.event_id.*dup/,
    },
    {
      what: 'ARK chunk list []',
      family: 'ARK',
      method: 'POST',
      path: '/stream/hostile-stream',
      body: '[]',
      status: 400,
      names: /chunks/,
    },
    {
      what: 'a __proto__ key',
      family: 'EverMemOS',
      method: 'POST',
      path: '/api/v1/memories',
      body: '{"group_id": "g-proto", "message_id": "m1", "create_time": "2026-01-02T03:04:05Z", "sender": "ann", "content": "x", "__proto__": {"polluted": true}}',
      status: 400,
      names: /__proto__/,
    },
    {
      what: 'a nested constructor.prototype key',
      family: 'KAOS',
      method: 'POST',
      path: '/memory/sessions/hostile/events',
      headers: { 'x-kaos-agent': 'hostile-agent' },
      body: '{"event_type": "user_message", "content": "x", "metadata": {"constructor": {"prototype": {"polluted": true}}}}',
      status: 400,
      names: /metadata\.constructor\.prototype/,
    },
    {
      what: 'invalid UTF-8',
      family: 'memory-service',
      method: 'POST',
      path: '/v1/conversations/hostile-ms/messages',
      body: Buffer.concat([Buffer.from('{"content": ["'), Buffer.from([0xff, 0xfe]), Buffer.from('"]}')]),
      status: 400,
    },
    {
      what: 'an unknown EverMemOS route',
      family: 'EverMemOS',
      method: 'GET',
      path: '/api/v1/nothing-here',
      status: 404,
    },
    { what: 'an unknown ARK route', family: 'ARK', method: 'GET', path: '/messages/nothing-here', status: 404 },
    {
      what: 'an unknown memory-service route',
      family: 'memory-service',
      method: 'GET',
      path: '/v1/nothing-here',
      status: 404,
    },
    { what: 'an unknown KAOS route', family: 'KAOS', method: 'GET', path: '/memory/nothing-here/x', status: 404 },
    {
      what: 'an unknown Memory Agent route',
      family: 'default',
      method: 'GET',
      path: '/api/v1/summaries/nothing-here',
      status: 404,
    },
    { what: 'an unknown route of no family', family: 'unclaimed', method: 'GET', path: '/nothing-here', status: 404 },
    {
      what: 'bad percent-encoding, ARK',
      family: 'ARK',
      method: 'POST',
      path: '/stream/%E0%A4%A',
      body: json({ token: 'x' }),
      status: 400,
    },
    {
      what: 'bad percent-encoding, memory-service',
      family: 'memory-service',
      method: 'POST',
      path: '/v1/conversations/%ZZ/messages',
      body: json({ content: ['x'] }),
      status: 400,
    },
    { what: 'bad percent-encoding, KAOS', family: 'KAOS', method: 'GET', path: '/memory/sessions/%ZZ', status: 400 },
    {
      what: 'a path segment of 3,000 characters, ARK',
      family: 'ARK',
      method: 'POST',
      path: `/stream/${'x'.repeat(3000)}`,
      body: json({ token: 'x' }),
      status: 414,
    },
    {
      what: 'a path segment of 3,000 characters, memory-service',
      family: 'memory-service',
      method: 'POST',
      path: `/v1/conversations/${'x'.repeat(3000)}/messages`,
      body: json({ content: ['x'] }),
      status: 414,
    },
    {
      what: 'a URL of 20,000 characters',
      family: 'EverMemOS',
      method: 'GET',
      path: `/api/v1/memories?group_id=${'x'.repeat(20_000)}`,
      status: 414,
    },
    {
      what: 'headers of 20,000 characters, KAOS',
      family: 'KAOS',
      method: 'GET',
      path: '/memory/sessions',
      headers: { 'x-padding': 'p'.repeat(20_000) },
      status: 431,
    },
    {
      what: 'headers of 20,000 characters, memory-service',
      family: 'memory-service',
      method: 'GET',
      path: '/v1/conversations',
      headers: { 'x-padding': 'p'.repeat(20_000) },
      status: 431,
    },
  );
  return list;
}

/**
 * Every hostile input of the probes behind issue 26, sent to the server at `base`: each gets a
 * 4xx (the status expected) in its family's error shape, naming no topic or schema; nothing is
 * published, so no consumer dead-letters anything and nothing is stored.
 */
export async function checkHostileInputs(
  base: string,
  credentials: Credentials,
  metricsBases: readonly string[],
): Promise<void> {
  // A session for the probes that need one to reach the converter (a duplicate event id used to fail there, as a 500).
  const kaos = { 'x-kaos-agent': 'hostile-agent' };
  const created = await call(base, credentials, 'POST', '/memory/sessions', { session_id: 'hostile' }, kaos);
  assert.equal(created.status, 201, json(created.body));
  const before = await busTotals(metricsBases);

  const failures: string[] = [];
  for (const probe of probes()) {
    const { status, text } = await raw(base, credentials, probe);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const expected = probe.status === undefined ? status >= 400 && status < 500 : status === probe.status;
    if (
      !expected ||
      !SHAPED[probe.family](body) ||
      /ingest\.|\.v1|does not match/.test(text) ||
      (probe.names && !probe.names.test(text))
    ) {
      failures.push(`${probe.what}: ${status} ${text.slice(0, 300)}`);
    }
  }
  assert.deepEqual(failures, [], `answers not as expected:\n${failures.join('\n')}`);

  const after = await busTotals(metricsBases);
  assert.equal(after.published, before.published, 'nothing was published to an input topic');
  assert.equal(after.deadLetters, 0, 'no consumer dead-lettered anything');
  assert.equal(after.toDlq, 0, 'nothing was published to a .dlq topic');

  // Nothing stored, in any family.
  assert.deepEqual(
    (await call(base, credentials, 'GET', '/sessions')).body.sessions,
    [],
    'no ARK session or stream chunk',
  );
  assert.deepEqual(
    (await call(base, credentials, 'GET', '/memory/sessions/hostile/events', undefined, kaos)).body.events,
    [],
    'no KAOS event',
  );
  const conversations = (await call(base, credentials, 'GET', '/v1/conversations')).body.data as Array<{ id: string }>;
  assert.ok(
    conversations.every((c) => c.id.startsWith('kaos_')),
    `only the KAOS session's conversation: ${json(conversations)}`,
  );
  for (const group of ['g-proto', ' \t ', '.', '..', 'x'.repeat(256)]) {
    const listed = await call(base, credentials, 'GET', `/api/v1/memories?group_id=${seg(group)}`);
    assert.equal(listed.body.result?.total_count ?? 0, 0, `no EverMemOS message in ${json(group)}`);
  }
}
