import type { Queryable } from '../../store.js';
import type { RetentionScope } from '../../participant/retention-counts.js';

/** The metadata key of a conversation's own retention period, which may shorten the setting's. */
export const RETENTION_METADATA_KEY = 'retention';

/**
 * True (SQL) for a row of a conversation in the scope: every one, or those whose metadata (their
 * own, or their group's root, so forks follow the conversation they came from) has the override.
 */
export function retentionScopeSql(column: string, params: unknown[], scope: RetentionScope): string {
  if (scope.override === undefined) return 'TRUE';
  const n = params.push(scope.override);
  // a fork's root holds its group (group_key = id): the join stays on the shard column, which Citus needs
  return `${column} IN (SELECT c.id FROM conversations c LEFT JOIN conversations r ON r.group_key = c.group_key AND r.id = c.group_id
    WHERE c.metadata->>'${RETENTION_METADATA_KEY}' = $${n} OR r.metadata->>'${RETENTION_METADATA_KEY}' = $${n})`;
}

/** The distinct overrides stored in conversations' metadata (valid or not: the caller checks them). */
export async function retentionOverrides(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ v: string }>(
    `SELECT DISTINCT metadata->>'${RETENTION_METADATA_KEY}' AS v FROM conversations
     WHERE metadata ? '${RETENTION_METADATA_KEY}' AND jsonb_typeof(metadata->'${RETENTION_METADATA_KEY}') = 'string'
     ORDER BY 1`,
  );
  return rows.map((r) => r.v);
}
