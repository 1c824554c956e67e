import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { embeddedMemstream } from '../helpers/embedded.js';
import { embeddedDataDir } from '../helpers/embedded-data-dir.js';
import { freshDatabase, uniqueName, waitFor } from '../helpers/infra.js';
import { bearer, userToken } from '../../harness/credentials.js';
import {
  analyzed,
  answers,
  answersAndExport,
  AGENT_KEY,
  ENV,
  exportHeader,
  importInto,
  rowCounts,
  settled,
  writeEverywhere,
} from './export-import-contract.js';

const SERVER_ENV = { ...ENV, EMBEDDING_PROVIDER: 'hash', INDEXER_REEMBED_BATCH: '500' };
/** Messages of a bulk group beside the world, so the import is cut with batches stored and more to come. */
const BULK = 3000;

/** An EverMemOS group of BULK messages, as an export: the source imports it beside what its families wrote. */
function bulkExport(): string {
  const id = uniqueName('bulk');
  const at = '2025-02-01T09:00:00.000000Z';
  const records: unknown[] = [
    exportHeader(at),
    {
      kind: 'conversation',
      id,
      sourceApi: 'evermemos',
      groupId: null,
      nextSeq: BULK,
      title: null,
      metadata: {},
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    },
  ];
  for (let seq = 0; seq < BULK; seq++)
    records.push({
      kind: 'message',
      conversationId: id,
      seq,
      // row numbers far above the world's, which the source numbers from 1
      id: 1_000_000 + seq,
      messageId: `b${seq}`,
      senderId: seq % 2 ? 'ann' : 'ben',
      senderName: seq % 2 ? 'Ann' : 'Ben',
      role: 'user',
      content: `Bulk line ${seq}: the ferry timetable changes again next week, bring the charts.`,
      createdAt: at,
      storedAt: at,
      referList: [],
      metadata: {},
      sourceApi: 'evermemos',
    });
  records.push({ kind: 'end', counts: { conversation: 1, message: BULK } });
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

/**
 * Whether an import has written and not committed: a transaction waiting for the rest of the body
 * (idle in transaction) that holds a write lock on messages. Or, were the import not one
 * transaction, any message visible at all: then the kill would leave them, and the test says so.
 */
async function importUnderWay(db: pg.Client): Promise<boolean> {
  const { rows } = await db.query<{ open: boolean; visible: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
                    WHERE a.state = 'idle in transaction' AND a.backend_xid IS NOT NULL
                      AND l.relation = 'messages'::regclass AND l.mode = 'RowExclusiveLock') AS open,
            EXISTS (SELECT 1 FROM messages) AS visible`,
  );
  return rows[0]!.open || rows[0]!.visible;
}

test('an import cut by SIGKILL of the embedded process group leaves nothing of it; imported again, the server answers as the source does', async (t: TestContext) => {
  const who = {
    agent: { 'x-api-key': AGENT_KEY },
    bob: bearer(await userToken('bob')),
    dave: bearer(await userToken('dave')),
    carol: bearer(await userToken('carol')),
    admin: bearer(await userToken('alice', { claims: { roles: ['admin', 'auditor'] } })),
  };

  // The source: every family written through its API, and a bulk group beside it.
  const sourceUrl = await freshDatabase(t);
  const source = await embeddedMemstream(t, { ...SERVER_ENV, DATABASE_URL: sourceUrl });
  const sourceDb = new pg.Client({ connectionString: sourceUrl });
  sourceDb.on('error', () => undefined);
  await sourceDb.connect();
  t.after(() => sourceDb.end().catch(() => undefined));
  const world = await writeEverywhere(source, who);
  const bulk = await importInto(source, who.admin, bulkExport());
  assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
  await waitFor('memories, summaries and vectors made', () => settled(sourceDb, world.group), 120_000);
  await analyzed(sourceDb);
  const { before, exported } = await answersAndExport(source, who, world, '/v1/admin/exports');
  const lines = exported.trim().split('\n');
  const firstMessage = lines.findIndex((l) => l.includes('"kind":"message"'));
  const lastMessage = lines.findLastIndex((l) => l.includes('"kind":"message"'));
  assert.ok(lastMessage - firstMessage > BULK, 'the export holds the bulk messages');

  // The target: the embedded mode as `npm start` runs it, in a process group of its own.
  const server = await embeddedDataDir(t, { prefix: 'memstream-import-crash-', env: SERVER_ENV });
  let target = await server.start();
  let db = await server.database();
  const fresh = await rowCounts(db);

  // Half the messages are sent, then the body waits: the server has stored batches in its open
  // transaction and waits for the rest when the process group is killed.
  const half = firstMessage + Math.floor((lastMessage - firstMessage) / 2);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${lines.slice(0, half).join('\n')}\n`));
      // never closed: the rest never comes
    },
  });
  const cut = fetch(`${target.base}/v1/admin/imports`, {
    method: 'POST',
    headers: { ...who.admin, 'content-type': 'application/x-ndjson' },
    body,
    duplex: 'half',
  } as RequestInit).then(
    (res) => `answered ${res.status}`,
    () => 'cut',
  );
  await waitFor('the import under way, its batches written', () => importUnderWay(db), 60_000);
  await db.end();
  await target.crash();
  assert.equal(await cut, 'cut', 'the import never answered');

  target = await server.start();
  db = await server.database();
  t.after(() => db.end().catch(() => undefined));
  assert.deepEqual(await rowCounts(db), fresh, 'nothing of the cut import is stored');

  const again = await importInto(target.base, who.admin, exported);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  await waitFor('the imported search rows embedded', () => settled(db, world.group), 120_000);
  await analyzed(db);
  assert.deepEqual(await answers(target.base, who, world), before);
  const messages = async (q: pg.Client) => Number((await q.query('SELECT count(*) AS n FROM messages')).rows[0].n);
  assert.equal(await messages(db), await messages(sourceDb), 'every message once');
});
