import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { everyMessageOf } from '../helpers/evermemos-client.js';
import { embeddedCommand, startEmbeddedProcess, untilHealthy, type EmbeddedProcess } from '../helpers/embedded-process.js';
import { freePort, REPO_ROOT } from '../helpers/processes.js';

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

const MODES = [
  { label: 'held writes (200)', query: '' },
  { label: 'sync_mode=false writes (202)', query: '?sync_mode=false' },
] as const;

test('the crash test starts the embedded mode the way npm start does', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(embeddedCommand().asWritten, pkg.scripts['start'], 'npm start changed: change embeddedCommand() in test/helpers/embedded-process.ts with it');
});

for (const mode of MODES) {
  test(`${mode.label}: every acknowledged message survives SIGKILL of the embedded process group, stored once`, async (t: TestContext) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'memstream-crash-'));
    const started: EmbeddedProcess[] = [];
    // One hook, in this order: a server still running would write into the folder being removed.
    t.after(async () => {
      for (const proc of started) await proc.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
    const groups = Array.from({ length: GROUPS }, (_, g) => `crash_g${g}`);
    const start = async () => {
      const since = performance.now();
      const proc = startEmbeddedProcess({ dataDir, port: await freePort() });
      started.push(proc);
      await untilHealthy(proc, since);
      return proc;
    };

    const acknowledged = new Map<string, string>(); // message_id -> group_id, over every round
    let proc = await start();
    for (let round = 1; round <= ROUNDS; round++) {
      const killAfter = randomInt(KILL_AFTER.min, KILL_AFTER.max + 1);
      const load = await writeUntilCrash(proc, { round, groups, query: mode.query, killAfter });
      for (const [id, group] of load.acknowledged) acknowledged.set(id, group);
      t.diagnostic(`round ${round}: killed after ${killAfter} acknowledgements; ${load.acknowledged.size} acknowledged in all, answers ${JSON.stringify(load.statuses)}`);
      assert.deepEqual(load.failuresBeforeCrash, [], 'requests failed before the crash: the server was broken, not crashed');

      proc = await start();
      const census = await untilStored(proc.base, groups, acknowledged);
      const summary =
        `round ${round} (${mode.label}), after restart: of ${acknowledged.size} acknowledged, ${census.found} found once, ` +
        `${census.missing.length} missing, ${census.duplicated.length} duplicated`;
      t.diagnostic(summary);
      assert.equal(census.missing.length, 0, `${summary}; missing e.g. ${census.missing.slice(0, 5).join(', ')}`);
      assert.equal(census.duplicated.length, 0, `${summary}; duplicated e.g. ${census.duplicated.slice(0, 5).join(', ')}`);
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
async function writeUntilCrash(proc: EmbeddedProcess, o: { round: number; groups: string[]; query: string; killAfter: number }): Promise<Load> {
  const acknowledged = new Map<string, string>();
  const statuses: Record<string, number> = {};
  const failuresBeforeCrash: string[] = [];
  let next = 0;
  let crashed: Promise<void> | undefined;

  const writer = async (w: number) => {
    while (!crashed) {
      const i = next++;
      const groupId = o.groups[i % o.groups.length]!;
      const messageId = `r${o.round}_m${i}`;
      const body = {
        group_id: groupId,
        message_id: messageId,
        create_time: new Date(Date.UTC(2025, 0, o.round, 0, 0, 0) + i * 1000).toISOString(),
        sender: `writer_${w}`,
        content: `round ${o.round}, message ${i}, from writer ${w}`,
      };
      let status: number;
      try {
        const res = await fetch(`${proc.base}/api/v1/memories${o.query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch (err) {
        if (!crashed) failuresBeforeCrash.push(`${messageId}: ${String((err as Error).cause ?? err)}`);
        return;
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== 200 && status !== 202) continue; // not acknowledged: nothing was promised
      acknowledged.set(messageId, groupId);
      if (acknowledged.size >= o.killAfter && !crashed) crashed = proc.crash();
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  if (!crashed) throw new Error(`the load ended after ${acknowledged.size} acknowledgements, before the crash: ${failuresBeforeCrash.slice(0, 3).join('; ')}`);
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

async function takeCensus(base: string, groups: readonly string[], acknowledged: ReadonlyMap<string, string>): Promise<Census> {
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
async function untilStored(base: string, groups: readonly string[], acknowledged: ReadonlyMap<string, string>): Promise<Census> {
  const started = performance.now();
  for (;;) {
    const census = await takeCensus(base, groups, acknowledged);
    if (census.missing.length === 0 || performance.now() - started > STORED_DEADLINE_MS) return census;
    await new Promise((r) => setTimeout(r, 250));
  }
}
