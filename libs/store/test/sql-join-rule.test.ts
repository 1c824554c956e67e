import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TableDistribution } from '@memstream/store';
import { joinsWithoutShardKey } from './sql-join-rule.js';
import { sqlInSource } from './sql-statements.js';

// a few rows of store_distribution, as the migrations fill it
const REGISTRY = new Map<string, TableDistribution>(
  (
    [
      ['conversations', 'distributed', 'group_key'],
      ['messages', 'distributed', 'group_key'],
      ['search_items', 'distributed', 'group_key'],
      ['conversation_memberships', 'distributed', 'group_id'],
      ['kaos_sessions', 'distributed', 'conversation_id'],
      ['kaos_session_names', 'distributed', 'agent'],
      ['person_groups', 'distributed', 'user_id'],
      ['erasure_jobs', 'reference', null],
      ['bus_journal', 'local', null],
    ] as const
  ).map(([tableName, kind, shardColumn]) => [tableName, { tableName, kind, shardColumn }]),
);

/** The findings for SQL as the lint reads it from a template in source (`${…}` a HOLE). */
const findings = (sql: string) =>
  sqlInSource('t.ts', `q.query(\`${sql}\`);`).flatMap((t) => joinsWithoutShardKey(t.sql, REGISTRY));

test('a join or correlation of distributed tables off their shard columns is reported', () => {
  const breaching = [
    // joins on the conversation's id alone
    'SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id',
    'SELECT m.id FROM messages m LEFT OUTER JOIN conversations c ON c.id = m.conversation_id',
    'SELECT c.id FROM conversations c INNER JOIN conversation_memberships o ON o.user_id = c.title',
    'SELECT m.id FROM messages m JOIN conversations c USING (id)',
    'SELECT m.id FROM messages m CROSS JOIN conversations c',
    'SELECT m.id FROM messages m, conversations c WHERE m.conversation_id = c.id',
    'UPDATE messages m SET content = c.title FROM conversations c WHERE c.id = m.conversation_id',
    'DELETE FROM messages m USING conversations c WHERE c.id = m.conversation_id AND c.deleted_at IS NOT NULL',
    // two tables joined only through a third's column that is not a shard column
    'SELECT 1 FROM unnest($1::text[]) AS t(c) JOIN messages m ON m.conversation_id = t.c JOIN conversations c ON c.id = t.c',
    // shard columns pinned to different parameters: two shards
    'SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.group_key = $1 AND c.group_key = $2',
    // a list of several groups spans several shards
    'SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.group_key IN ($1, $2) AND c.group_key IN ($1, $2)',
    // correlated subqueries
    'SELECT c.id FROM conversations c WHERE EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id)',
    'SELECT c.id FROM conversations c WHERE NOT EXISTS (SELECT 1 FROM messages WHERE conversation_id = c.id)',
    'SELECT c.id FROM conversations c WHERE c.title IN (SELECT m.content FROM messages m WHERE m.conversation_id = c.id)',
    'SELECT c.id, (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) FROM conversations c',
    `SELECT c.id FROM conversations c
       LEFT JOIN LATERAL (SELECT m.id FROM messages m WHERE m.conversation_id = c.id LIMIT 1) x ON true`,
    // the inner table pinned to one shard, the outer rows on every shard
    'SELECT c.id FROM conversations c WHERE EXISTS (SELECT 1 FROM messages m WHERE m.group_key = $1 AND m.conversation_id = c.id)',
    // sharded by person and by agent: never on a group's shard
    'SELECT c.id FROM conversations c JOIN person_groups p ON p.group_id = c.group_key WHERE p.user_id = $1',
    'SELECT c.id FROM conversations c WHERE EXISTS (SELECT 1 FROM person_groups p WHERE p.user_id = $1 AND p.group_id = c.group_key)',
    'SELECT s.agent FROM kaos_sessions s JOIN kaos_session_names n ON n.conversation_id = s.conversation_id',
    // a fragment spliced into a statement elsewhere: its outer alias is unseen, its shard column unmatched
    'NOT EXISTS (SELECT 1 FROM conversations gone WHERE gone.id = ${table}.${column} AND gone.deleted_at IS NOT NULL)',
    'EXISTS (SELECT 1 FROM conversation_memberships o WHERE o.user_id = c.title)',
  ];
  for (const sql of breaching) assert.notDeepEqual(findings(sql), [], `missed: ${sql}`);
  assert.deepEqual(findings('SELECT m.id FROM messages m JOIN conversations c ON c.id = m.conversation_id'), [
    'messages m joined to conversations c',
  ]);
  assert.deepEqual(
    findings('SELECT c.id FROM conversations c WHERE EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id)'),
    ['messages m correlated with conversations c'],
  );
});

test('a join or correlation on both shard columns, or off distributed tables, passes', () => {
  const clean = [
    'SELECT m.id FROM messages m JOIN conversations c ON c.group_key = m.group_key AND c.id = m.conversation_id',
    'SELECT m.id FROM messages m LEFT JOIN conversations c ON m.group_key = c.group_key AND c.id = m.conversation_id',
    'SELECT c.id FROM conversations c JOIN conversation_memberships o ON o.group_id = c.group_key WHERE o.user_id = $1',
    'SELECT m.id FROM messages m JOIN conversations c USING (group_key, id)',
    'SELECT m.id FROM messages m, conversations c WHERE m.group_key = c.group_key AND m.conversation_id = c.id',
    'UPDATE messages m SET content = c.title FROM conversations c WHERE c.group_key = m.group_key AND c.id = m.conversation_id',
    // a KAOS session is its own group: its shard column is its conversation's group_key
    'SELECT 1 FROM kaos_sessions k JOIN conversations c ON c.group_key = k.conversation_id AND c.id = k.conversation_id',
    // equal through the rows of unnest(), or pinned to one parameter: one shard
    'SELECT 1 FROM unnest($1::text[]) AS t(g) JOIN messages m ON m.group_key = t.g JOIN search_items s ON s.group_key = t.g',
    'SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.group_key = $1 AND c.group_key = $1::text',
    "SELECT 1 FROM conversations c WHERE c.group_key = 'private:' || $2 AND EXISTS (SELECT 1 FROM messages m WHERE m.group_key = 'private:' || $2 AND m.conversation_id = c.id)",
    'SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.group_key IN ($1) AND c.group_key = $1',
    // correlated on the shard columns, the inner one bare in a block of one table
    'SELECT c.id FROM conversations c WHERE EXISTS (SELECT 1 FROM messages m WHERE m.group_key = c.group_key AND m.conversation_id = c.id)',
    'SELECT c.id FROM conversations c WHERE NOT EXISTS (SELECT 1 FROM messages WHERE group_key = c.group_key AND conversation_id = c.id)',
    `SELECT c.id FROM messages c LEFT JOIN LATERAL
       (SELECT x.id FROM messages x WHERE x.group_key = c.group_key AND x.seq < c.seq LIMIT 1) p ON true`,
    // reference and local tables, unnest(), CTEs and derived tables need no shard column
    'SELECT m.id FROM messages m JOIN erasure_jobs j ON j.user_id = m.sender_id',
    'SELECT m.id FROM messages m JOIN bus_journal b ON b.id = m.id',
    'SELECT m.id FROM messages m JOIN unnest($1::text[]) AS u(id) ON m.message_id = u.id',
    'WITH gone AS (DELETE FROM conversation_memberships WHERE group_id = $1 RETURNING group_id) SELECT c.id FROM gone JOIN conversations c ON c.id = gone.group_id',
    'SELECT c.id FROM conversations c JOIN (SELECT conversation_id FROM messages LIMIT 5) m ON m.conversation_id = c.id',
    // an uncorrelated subquery is planned on its own
    'SELECT c.id FROM conversations c WHERE c.id IN (SELECT conversation_id FROM kaos_sessions)',
    'SELECT c.id FROM conversations c WHERE c.group_key IN (SELECT group_id FROM person_groups WHERE user_id = $1)',
    // person_groups pinned to the person: one shard
    'SELECT group_id FROM person_groups p WHERE p.user_id = $1 AND EXISTS (SELECT 1 FROM person_groups q WHERE q.user_id = p.user_id)',
    // fragments: the unseen outer side equated to the inner shard column, or a parameter
    'EXISTS (SELECT 1 FROM conversation_memberships o WHERE o.group_id = c.group_key AND o.user_id = $1)',
    'EXISTS (SELECT 1 FROM conversation_memberships o WHERE o.group_id = ${group} AND o.user_id = c.owner)',
    // a FROM built from pieces: the aliases it declares are its own, not an outer table's
    'SELECT m.id FROM ${rows} JOIN messages m ON m.id = r.id WHERE m.seq = r.seq',
    // an alias reused in a CTE is that CTE's
    'WITH x AS (SELECT m.group_key FROM messages m WHERE m.group_key = $1) SELECT m.id FROM x JOIN messages m ON m.group_key = x.group_key',
  ];
  for (const sql of clean) assert.deepEqual(findings(sql), [], sql);
});
