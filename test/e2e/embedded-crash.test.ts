import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedDataDir } from '../helpers/embedded-data-dir.js';
import { call, everyMessageOf } from '../helpers/evermemos-client.js';
import { embeddedCommand, type EmbeddedProcess } from '../../harness/embedded-process.js';
import { REPO_ROOT } from '../../harness/processes.js';

const WRITERS = 16;
const GROUPS = 4;
const ROUNDS = 3;
/** The acknowledgements after which the process group is killed: 100 to 400, drawn per round. */
const KILL_AFTER = { min: 100, max: 400 };
/**
 * How long a restarted process may take to store what it acknowledged before the crash (a journal
 * replayed, a backlog drained). Generous: it only ends a wait that has already failed.
 */
const STORED_DEADLINE_MS = 120_000;

/** One write of a mode: where it goes, what it sends, the conversation it lands in, and its message id when the client picks it. */
interface Write {
  readonly path: string;
  readonly body: unknown;
  readonly group: string;
  readonly messageId?: string;
}

interface Mode {
  readonly label: string;
  /** The conversations the writes go to, made (and acknowledged) before the first crash. */
  readonly setUp: (base: string) => Promise<string[]>;
  readonly write: (groups: readonly string[], round: number, i: number, w: number) => Write;
}

const evermemos =
  (query: string): Mode['write'] =>
  (groups, round, i, w) => {
    const group = groups[i % groups.length]!;
    const messageId = `r${round}_m${i}`;
    return {
      path: `/api/v1/memories${query}`,
      group,
      messageId,
      body: {
        group_id: group,
        message_id: messageId,
        create_time: new Date(Date.UTC(2025, 0, round, 0, 0, 0) + i * 1000).toISOString(),
        sender: `writer_${w}`,
        content: `round ${round}, message ${i}, from writer ${w}`,
      },
    };
  };

const MODES: readonly Mode[] = [
  { label: 'held writes (200)', setUp: async () => groupsOf('crash_g'), write: evermemos('') },
  {
    label: 'sync_mode=false writes (202)',
    setUp: async () => groupsOf('crash_g'),
    write: evermemos('?sync_mode=false'),
  },
  {
    // The memory-service family writes through its own topic; the server names the messages.
    label: 'memory-service appends (201)',
    setUp: async (base) =>
      Promise.all(
        groupsOf('').map(async () => {
          const res = await fetch(`${base}/v1/conversations`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          });
          assert.equal(res.status, 201);
          return ((await res.json()) as { id: string }).id;
        }),
      ),
    write: (groups, round, i, w) => {
      const group = groups[i % groups.length]!;
      return {
        path: `/v1/conversations/${group}/messages`,
        group,
        body: { content: [{ type: 'text', text: `round ${round}, message ${i}, from writer ${w}` }] },
      };
    },
  },
];

function groupsOf(prefix: string): string[] {
  return Array.from({ length: GROUPS }, (_, g) => `${prefix}${g}`);
}

test('the crash test starts the embedded mode the way npm start does', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(
    embeddedCommand().asWritten,
    pkg.scripts['start'],
    'npm start changed: change embeddedCommand() in harness/embedded-process.ts with it',
  );
});

for (const mode of MODES) {
  test(`${mode.label}: every acknowledged message survives SIGKILL of the embedded process group, stored once`, async (t: TestContext) => {
    const server = await embeddedDataDir(t, { prefix: 'memstream-crash-' });

    const acknowledged = new Map<string, string>(); // message_id -> group_id, over every round
    let proc = await server.start();
    const groups = await mode.setUp(proc.base);
    for (let round = 1; round <= ROUNDS; round++) {
      const killAfter = randomInt(KILL_AFTER.min, KILL_AFTER.max + 1);
      const load = await writeUntilCrash(proc, { round, groups, write: mode.write, killAfter });
      for (const [id, group] of load.acknowledged) acknowledged.set(id, group);
      t.diagnostic(
        `round ${round}: killed after ${killAfter} acknowledgements; ${load.acknowledged.size} acknowledged in all, answers ${JSON.stringify(load.statuses)}`,
      );
      assert.deepEqual(
        load.failuresBeforeCrash,
        [],
        'requests failed before the crash: the server was broken, not crashed',
      );

      proc = await server.start();
      const census = await untilStored(proc.base, groups, acknowledged);
      const summary =
        `round ${round} (${mode.label}), after restart: of ${acknowledged.size} acknowledged, ${census.found} found once, ` +
        `${census.missing.length} missing, ${census.duplicated.length} duplicated`;
      t.diagnostic(summary);
      assert.equal(census.missing.length, 0, `${summary}; missing e.g. ${census.missing.slice(0, 5).join(', ')}`);
      assert.equal(
        census.duplicated.length,
        0,
        `${summary}; duplicated e.g. ${census.duplicated.slice(0, 5).join(', ')}`,
      );
      assert.deepEqual(census.storedTwice, [], `${summary}; a group holds one message_id more than once`);
    }
    await proc.stop();
  });
}

interface Load {
  readonly acknowledged: Map<string, string>;
  readonly statuses: Record<string, number>;
  readonly failuresBeforeCrash: string[];
}

/**
 * WRITERS clients post one message at a time each until `killAfter` were acknowledged, then the
 * whole process group gets SIGKILL while the others' requests are still open. An answer read
 * after the kill still counts: the server gave it before it died.
 */
async function writeUntilCrash(
  proc: EmbeddedProcess,
  o: { round: number; groups: string[]; write: Mode['write']; killAfter: number },
): Promise<Load> {
  const acknowledged = new Map<string, string>();
  const statuses: Record<string, number> = {};
  const failuresBeforeCrash: string[] = [];
  let next = 0;
  let crashed: Promise<void> | undefined;

  const writer = async (w: number) => {
    while (!crashed) {
      const i = next++;
      const write = o.write(o.groups, o.round, i, w);
      let status: number;
      let messageId = write.messageId;
      try {
        const res = await fetch(`${proc.base}${write.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(write.body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        status = res.status;
        // a server-named message: its id is in the answer (201 and 202 alike)
        if (messageId === undefined && (status === 201 || status === 202))
          messageId = (JSON.parse(text) as { id: string }).id;
      } catch (err) {
        if (!crashed) failuresBeforeCrash.push(`write ${i}: ${String((err as Error).cause ?? err)}`);
        return;
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (![200, 201, 202].includes(status) || messageId === undefined) continue; // not acknowledged: nothing was promised
      acknowledged.set(messageId, write.group);
      if (acknowledged.size >= o.killAfter && !crashed) crashed = proc.crash();
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  if (!crashed)
    throw new Error(
      `the load ended after ${acknowledged.size} acknowledgements, before the crash: ${failuresBeforeCrash.slice(0, 3).join('; ')}`,
    );
  await crashed;
  return { acknowledged, statuses, failuresBeforeCrash };
}

interface Census {
  readonly found: number;
  readonly missing: string[];
  readonly duplicated: string[];
  /** `group: id` for every id a group holds more than once, acknowledged or not. */
  readonly storedTwice: string[];
}

async function takeCensus(
  base: string,
  groups: readonly string[],
  acknowledged: ReadonlyMap<string, string>,
): Promise<Census> {
  const copies = new Map<string, number>(); // `${group}\n${id}` -> rows
  for (const group of groups) {
    for (const m of await everyMessageOf(base, group)) {
      const key = `${group}\n${m.message_id}`;
      copies.set(key, (copies.get(key) ?? 0) + 1);
    }
  }
  const missing: string[] = [];
  const duplicated: string[] = [];
  for (const [id, group] of acknowledged) {
    const n = copies.get(`${group}\n${id}`) ?? 0;
    if (n === 0) missing.push(id);
    if (n > 1) duplicated.push(id);
  }
  const storedTwice = [...copies].filter(([, n]) => n > 1).map(([key]) => key.replace('\n', ': '));
  return { found: acknowledged.size - missing.length - duplicated.length, missing, duplicated, storedTwice };
}

/**
 * Reads every group until no acknowledged message is missing, or until the deadline; returns the
 * last census either way, so a failure can say how many were found, missing and duplicated.
 */
async function untilStored(
  base: string,
  groups: readonly string[],
  acknowledged: ReadonlyMap<string, string>,
): Promise<Census> {
  const started = performance.now();
  for (;;) {
    const census = await takeCensus(base, groups, acknowledged);
    if (census.missing.length === 0 || performance.now() - started > STORED_DEADLINE_MS) return census;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Commands go through the same journaled bus and converter transaction as messages: a deletion or
 * a session completion that was acknowledged must hold after a crash (the message stays gone, the
 * session stays completed), and one that was never sent must have changed nothing.
 */
test('acknowledged deletions and ARK session completions survive SIGKILL of the embedded process group, applied once', async (t: TestContext) => {
  const server = await embeddedDataDir(t, { prefix: 'memstream-crash-commands-' });
  // Answered once applied (200), then once journaled: with no sync wait every command is a 202
  // that only the journal's replay can make good after the crash.
  const rounds: Array<{ label: string; env: Record<string, string> }> = [
    { label: 'answered once applied', env: {} },
    { label: 'answered once journaled (REQUEST_SYNC_TIMEOUT_MS=0)', env: { REQUEST_SYNC_TIMEOUT_MS: '0' } },
  ];
  const TARGETS = 300; // of each kind per round: more than a crash after at most 250 acknowledgements can use
  const groups = groupsOf('crash_cmd_g');
  let proc: EmbeddedProcess | undefined;
  for (const [r, { label, env }] of rounds.entries()) {
    const round = r + 1;
    await proc?.stop();
    proc = await server.start(env);
    const base = proc.base;
    // What the commands will act on, stored (and acknowledged) before the load starts.
    const messages = Array.from({ length: TARGETS }, (_, i) => ({
      id: `r${round}_m${i}`,
      group: groups[i % groups.length]!,
    }));
    const sessions = Array.from({ length: TARGETS }, (_, i) => `crash_r${round}_s${i}`);
    await inParallel(WRITERS, messages, async (m, i) => {
      const res = await call(base, 'POST', '/api/v1/memories', {
        group_id: m.group,
        message_id: m.id,
        create_time: new Date(Date.UTC(2025, 1, round) + i * 1000).toISOString(),
        sender: 'setup',
        content: `target ${i}`,
      });
      assert.ok(res.status === 200 || res.status === 202, `setup write answered ${res.status}`);
    });
    await inParallel(WRITERS, sessions, async (session) => {
      const res = await call(base, 'POST', '/messages', {
        session_id: session,
        query_id: 'q1',
        messages: [{ role: 'user', content: 'hello' }],
      });
      assert.ok(res.status === 200 || res.status === 202, `setup write answered ${res.status}`);
    });

    // 16 clients alternate deletions and completions, each target once, until the kill.
    const killAfter = randomInt(100, 251);
    const deleted = new Set<string>();
    const completed = new Set<string>();
    const sent = new Set<string>();
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    let next = 0;
    let crashed: Promise<void> | undefined;
    const writer = async () => {
      while (!crashed && next < 2 * TARGETS) {
        const k = next++;
        const isDelete = k % 2 === 0;
        const target = isDelete ? messages[k >> 1]! : undefined;
        const session = isDelete ? undefined : sessions[k >> 1]!;
        sent.add(target?.id ?? session!);
        let status: number;
        try {
          const res = target
            ? await fetch(`${base}/api/v1/memories?message_id=${target.id}&group_id=${target.group}`, {
                method: 'DELETE',
                signal: AbortSignal.timeout(30_000),
              })
            : await fetch(`${base}/session/${session}/complete`, {
                method: 'POST',
                signal: AbortSignal.timeout(30_000),
              });
          await res.arrayBuffer();
          status = res.status;
        } catch (err) {
          if (!crashed) failures.push(String((err as Error).cause ?? err));
          return;
        }
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status !== 200 && status !== 202) continue; // not acknowledged: nothing was promised
        (target ? deleted : completed).add(target?.id ?? session!);
        if (deleted.size + completed.size >= killAfter && !crashed) crashed = proc!.crash();
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, () => writer()));
    assert.deepEqual(failures, [], 'requests failed before the crash: the server was broken, not crashed');
    assert.ok(
      crashed,
      `the commands ran out before the crash (${deleted.size} deletions, ${completed.size} completions acknowledged)`,
    );
    await crashed;
    t.diagnostic(
      `round ${round}, ${label}: killed after ${killAfter} acknowledgements (${deleted.size} deletions, ${completed.size} completions; answers ${JSON.stringify(statuses)})`,
    );

    proc = await server.start();
    // A deletion applied late (a 202, replayed from the journal) is still on its way: wait for it.
    const started = performance.now();
    let present = new Map<string, number>();
    for (;;) {
      present = new Map();
      for (const group of groups)
        for (const m of await everyMessageOf(proc.base, group))
          present.set(m.message_id, (present.get(m.message_id) ?? 0) + 1);
      if ([...deleted].every((id) => !present.has(id)) || performance.now() - started > STORED_DEADLINE_MS) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const stillThere = [...deleted].filter((id) => present.has(id));
    assert.deepEqual(stillThere, [], `acknowledged deletions not applied after the restart (round ${round})`);
    const lost = messages.filter((m) => !sent.has(m.id) && present.get(m.id) !== 1).map((m) => m.id);
    assert.deepEqual(lost, [], `messages no deletion was sent for are not there exactly once (round ${round})`);
    for (const session of sessions) {
      const { status }: { status?: string } = (
        await call<{ status?: string }>(proc.base, 'POST', `/session/${session}/complete`)
      ).body;
      if (completed.has(session))
        assert.equal(status, 'already_completed', `acknowledged completion of ${session} lost (round ${round})`);
      if (!sent.has(session))
        assert.equal(status, 'completed', `${session} was completed though nobody asked (round ${round})`);
    }
  }
  await proc?.stop();
});

async function inParallel<T>(
  width: number,
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}
