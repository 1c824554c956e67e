import type { TestContext } from 'node:test';
import { createLogger } from '@memstream/logging';
import { deleteSearchRows, PgStore, openPglite, type NewMessage, type Queryable, type Store } from '@memstream/store';
import { freshDatabase, waitFor } from '../../../test/helpers/infra.js';

export { migratedStore } from '../../../test/helpers/migrated-store.js';

export const log = createLogger({ service: 'test', level: 'silent' });

/** Both stores search runs on: each test of search is run against each. */
export const backends: Array<[string, (t: TestContext) => Promise<Store>]> = [
  ['PGlite', async () => openPglite()],
  [
    'native PostgreSQL',
    async (t) =>
      new PgStore({ connectionString: await freshDatabase(t), maxConnections: 4, statementTimeoutMs: 60_000, log }),
  ],
];

/** The words the search tests' made-up texts are drawn from. */
export const WORDS = [
  'garden',
  'tomato',
  'lisbon',
  'harvest',
  'piano',
  'invoice',
  'doctor',
  'flight',
  'coffee',
  'museum',
  'marathon',
  'kitchen',
];

/** A deterministic generator, so a failure can be replayed. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * What the kept counts must equal: the same statistics counted from search_items itself. Each
 * conversation's totals per group, kind and audience (migrations 0032, 0039), counted plus still
 * pending (migration 0021), which is what a search adds up, at any moment; the sums over every
 * conversation (0045): the totals, those of the conversations' counted totals, and the lexemes,
 * those of the search rows no longer pending. And no counts per conversation and lexeme, which
 * nothing keeps since migration 0048.
 */
export async function countsDiffer(store: Queryable): Promise<unknown[]> {
  const { rows: totals } = await store.query(
    `SELECT * FROM (SELECT group_key, conversation_id, kind, search_keyword_audience(audience) AS audience, count(*) AS n, sum(length(tsv)) AS l
                      FROM search_items GROUP BY 1, 2, 3, 4) a
       FULL JOIN (SELECT group_key, conversation_id, kind, audience, sum(items) AS items, sum(lexemes) AS lexemes FROM (
                    SELECT group_key, conversation_id, kind, audience, items, lexemes FROM search_keyword_totals
                    UNION ALL
                    SELECT group_key, conversation_id, kind, audience, 1, length(tsv) FROM search_keyword_pending) k
                   GROUP BY 1, 2, 3, 4) t USING (group_key, conversation_id, kind, audience)
      WHERE (COALESCE(a.n, 0), COALESCE(a.l, 0)) IS DISTINCT FROM (t.items, t.lexemes)`,
  );
  // a lexeme none holds has no row
  const { rows: overall } = await store.query(
    `SELECT 'overall' AS sums, * FROM (
         SELECT l.lexeme, s.kind, search_keyword_audience(s.audience) AS audience, count(*) AS n
           FROM search_items s, unnest(s.tsv) l
          WHERE octet_length(l.lexeme) <= 1000
            AND NOT EXISTS (SELECT FROM search_keyword_pending p WHERE (p.group_key, p.kind, p.item_id) = (s.group_key, s.kind, s.item_id))
          GROUP BY 1, 2, 3) a
       FULL JOIN search_keyword_overall_frequencies o USING (lexeme, kind, audience)
      WHERE a.n IS DISTINCT FROM o.items OR o.items = 0`,
  );
  const { rows: overallTotals } = await store.query(
    `SELECT 'overall' AS sums, * FROM (SELECT kind, audience, sum(items) AS n, sum(lexemes) AS l FROM search_keyword_totals GROUP BY 1, 2) a
       FULL JOIN search_keyword_overall_totals o USING (kind, audience)
      WHERE (COALESCE(a.n, 0), COALESCE(a.l, 0)) IS DISTINCT FROM (COALESCE(o.items, 0), COALESCE(o.lexemes, 0))`,
  );
  const { rows: retired } = await store.query(`SELECT 'retired' AS counts, * FROM search_keyword_frequencies`);
  return [...totals, ...overall, ...overallTotals, ...retired];
}

/** Deletes the search rows matching `condition` through the writer that counts their words out. */
export async function deleteSearchRowsWhere(
  store: Queryable,
  condition: string,
  params: unknown[] = [],
): Promise<number> {
  const { rows } = await store.query<{ group_key: string; kind: 'message' | 'episodic_memory'; item_id: string }>(
    `SELECT group_key, kind, item_id FROM search_items WHERE ${condition}`,
    params,
  );
  let deleted = 0;
  for (const kind of ['message', 'episodic_memory'] as const) {
    const keys = rows.filter((r) => r.kind === kind).map((r) => ({ groupKey: r.group_key, itemId: r.item_id }));
    deleted += await deleteSearchRows(store, kind, keys);
  }
  return deleted;
}

/** Waits until a statement starting with `statement` is blocked on a lock: the race a test sets up is under way. */
export async function waitForLockedStatement(store: Store, what: string, statement: string): Promise<void> {
  await waitFor(what, async () => {
    const { rows } = await store.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
      [`${statement}%`],
    );
    return Number(rows[0]!.n) > 0;
  });
}

/**
 * A consumer held mid-write, as the race tests need it: `work` runs in a transaction that stays
 * open until `commit()`; `ready` settles once `work` has done its writes, `done` once it committed.
 */
export function heldTransaction(
  store: Store,
  work: (tx: Queryable) => Promise<void>,
): { ready: Promise<void>; commit: () => void; done: Promise<void> } {
  let commit!: () => void;
  const mayCommit = new Promise<void>((resolve) => {
    commit = resolve;
  });
  let wrote!: () => void;
  const ready = new Promise<void>((resolve) => {
    wrote = resolve;
  });
  const done = store.transaction(async (tx) => {
    await work(tx);
    wrote();
    await mayCommit;
  });
  return { ready, commit, done };
}

/**
 * Search rows of test items, each conversation its own group, one a minute from 2025-01-01 in
 * the order given: what insertSearchRows takes.
 */
export function searchRowsOf(
  rows: ReadonlyArray<{ id: string; conversation: string; text: string; kind?: 'message' | 'episodic_memory' }>,
) {
  return rows.map((r, n) => ({
    groupKey: r.conversation,
    kind: r.kind ?? ('message' as const),
    itemId: r.id,
    conversationId: r.conversation,
    userId: 'u',
    content: r.text,
    occurredAt: new Date(Date.UTC(2025, 0, 1) + (n + 1) * 60_000),
    messageIds: [r.id],
  }));
}

/** A user's chat message of `conversation`, as the store tests append them. */
export function chatMessage(conversation: string, id: string, content: string): NewMessage {
  return {
    conversation_id: conversation,
    message_id: id,
    sender_id: 'u1',
    sender_name: 'User One',
    role: 'user',
    content,
    created_at: new Date(Date.UTC(2025, 0, 15, 10)),
    refer_list: [],
    metadata: {},
    source_api: 'evermemos',
  };
}
