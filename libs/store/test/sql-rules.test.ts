import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { readDistribution } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { functionBodies, tableFacts } from './catalog.js';
import { type Breach, breachesOf, type Rule, type RuleContext } from './sql-rules.js';
import { sqlInSource, sqlTexts } from './sql-statements.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SCHEMA = 'libs/store/schema.sql';

/**
 * Breaches of the rules (docs/store.md) let stand, by file and rule, with how many statements
 * break it there: none since stop 55. The test fails on a breach beyond these and on a count that
 * fell without the list following, so the list holds the line and only shrinks.
 */
const ALLOWED: Readonly<Record<string, Partial<Record<Rule, number>>>> = {};

async function context(): Promise<{ ctx: RuleContext; schemaBreaches: Breach[] }> {
  const store = await migratedPglite();
  try {
    const [registry, tables, functions] = await Promise.all([
      readDistribution(store),
      tableFacts(store),
      functionBodies(store),
    ]);
    const distributed = [...registry.values()].filter((t) => t.kind === 'distributed').map((t) => t.tableName);
    const functionsOverDistributed = new Set(
      [...functions].filter(([, body]) => distributed.some((t) => new RegExp(`\\b${t}\\b`).test(body))).map(([n]) => n),
    );
    const schemaBreaches: Breach[] = [
      ...[...functionsOverDistributed].map(() => ({
        file: SCHEMA,
        line: 0,
        rule: 'function-over-distributed' as const,
      })),
      ...distributed.flatMap((t) =>
        (tables.get(t)?.triggers ?? []).map(() => ({ file: SCHEMA, line: 0, rule: 'trigger-on-distributed' as const })),
      ),
    ];
    return { ctx: { registry, functionsOverDistributed }, schemaBreaches };
  } finally {
    await store.close();
  }
}

function tally(breaches: readonly Breach[]): Record<string, Partial<Record<Rule, number>>> {
  const out: Record<string, Partial<Record<Rule, number>>> = {};
  for (const b of [...breaches].sort((x, y) => x.file.localeCompare(y.file) || x.rule.localeCompare(y.rule))) {
    const byRule = (out[b.file] ??= {});
    byRule[b.rule] = (byRule[b.rule] ?? 0) + 1;
  }
  return out;
}

test('the statements of libs/store break no Citus rule beyond the named ones', async () => {
  const { ctx, schemaBreaches } = await context();
  const texts = sqlTexts(ROOT, resolve(ROOT, 'libs/store/src'));
  assert.ok(texts.length > 100, `only ${texts.length} SQL texts found: the reader lost them`);
  const breaches = [...schemaBreaches, ...texts.flatMap((text) => breachesOf(text, ctx))];
  assert.deepEqual(tally(breaches), ALLOWED, breaches.map((b) => `${b.file}:${b.line} ${b.rule}`).join('\n'));
});

test('each rule reports the statement planted to break it', async () => {
  const schema = (await context()).ctx;
  // the schema holds no function over a distributed table since 0043: a planted name stands in for one
  const ctx = {
    ...schema,
    functionsOverDistributed: new Set([...schema.functionsOverDistributed, 'planted_visible_to']),
  };
  const planted: Record<Rule, readonly string[]> = {
    'time-in-write': [
      `INSERT INTO job_leases AS l (name) VALUES ($1)
        ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner WHERE l.leased_until < clock_timestamp()`,
      'UPDATE messages SET stored_at = now() WHERE conversation_id = $1',
      'UPDATE ${table} SET leased_until = clock_timestamp() WHERE id = $1',
      'tags = EXCLUDED.tags, updated_at = now()',
      `INSERT INTO job_leases AS l (name) VALUES ($1)
        ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner
        WHERE l.last_completed_at < $2::timestamptz - make_interval(secs => $3::float8 / 1000)`,
    ],
    'lock-without-shard-key': [
      "SELECT id FROM episodes WHERE status = 'pending' ${skip ? 'FOR UPDATE SKIP LOCKED' : ''}",
      'SELECT id FROM ${table} WHERE id = $1 FOR UPDATE',
      'SELECT m.id FROM unnest($1::text[]) AS t(id) JOIN episodic_memories m ON m.id = t.id FOR KEY SHARE OF m',
    ],
    'unnest-lateral-or-correlated': [
      `SELECT m.id FROM unnest($1::text[]) AS u(id)
        LEFT JOIN LATERAL (SELECT id FROM messages x WHERE x.message_id = u.id LIMIT 1) m ON true`,
      'SELECT u.id, (SELECT count(*) FROM messages x WHERE x.message_id = u.id) FROM unnest($1::text[]) AS u(id)',
    ],
    'function-over-distributed': [
      'SELECT * FROM messages WHERE conversation_id IN (SELECT planted_visible_to($1, $2))',
    ],
    'computed-group': ['SELECT id FROM conversations c WHERE COALESCE(c.group_id, c.id) = $1'],
    'trigger-on-distributed': [],
    'join-without-shard-key': [
      'SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id',
      'SELECT c.id FROM conversations c WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id)',
    ],
  };
  const found = (sql: string) =>
    sqlInSource('planted.ts', `q.query(\`${sql}\`);`).flatMap((text) => breachesOf(text, ctx));
  for (const [rule, statements] of Object.entries(planted)) {
    for (const sql of statements)
      assert.ok(
        found(sql).some((b) => b.rule === rule),
        `${rule} missed: ${sql}`,
      );
  }
  // keyed by the shard column, on a reference table, or without a clock, the same shapes pass
  const clean = [
    'INSERT INTO job_leases AS l (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET owner = $2 WHERE l.leased_until < $3',
    'UPDATE bus_journal_positions SET next_offset = $1 WHERE topic = $2 AND stamped < now()',
    'SELECT id FROM conversation_memberships WHERE group_id = $1 FOR UPDATE',
    "SELECT id FROM erasure_jobs WHERE status = 'pending' FOR UPDATE SKIP LOCKED",
    'SELECT m.id FROM messages m JOIN unnest($1::text[]) AS u(id) ON m.message_id = u.id',
    'SELECT m.id FROM messages m JOIN conversations c ON c.group_key = m.group_key AND c.id = m.conversation_id',
  ];
  assert.deepEqual(clean.flatMap(found), []);
});
