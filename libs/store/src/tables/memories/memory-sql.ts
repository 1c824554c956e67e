/**
 * What other folders' statements ask of the memories (summaries, episodes, episodic memories), as
 * SQL to put inside them. Each names the rows by their group (the shard column) wherever the outer
 * statement has it, so that they are found beside the outer rows.
 */

/** True when the conversation has a completed summary (the Memory Agent's window over it). */
export const hasCompletedSummary = (group: string, conversation: string, alias = 's') =>
  `EXISTS (SELECT 1 FROM memory ${alias} WHERE ${alias}.group_key = ${group} AND ${alias}.conversation_id = ${conversation} AND ${alias}.status = 'completed')`;

/** How many completed summaries the conversation has, an int. */
export const completedSummaries = (group: string, conversation: string, alias = 's') =>
  `(SELECT count(*)::int FROM memory ${alias}
              WHERE ${alias}.group_key = ${group} AND ${alias}.conversation_id = ${conversation} AND ${alias}.status = 'completed')`;

/**
 * The last sequence number an episode of the conversation holds, -1 when none does: the messages
 * after it are its open span, which no episode holds yet. With `group`, the episodes are read in
 * that group only (one shard).
 */
export const lastEpisodeEnd = (conversation: string, group?: string) =>
  `COALESCE((SELECT max(end_seq) FROM episodes WHERE conversation_id = ${conversation}${group === undefined ? '' : ` AND group_key = ${group}`}), -1)`;

/**
 * An inner join to the current (not superseded) memories of `id` among the groups `groups` (an
 * array expression): the groups, the memories' shard column, let a statement over many memories
 * prune to their shards.
 */
export const joinCurrentMemory = (alias: string, groups: string, id: string) =>
  `JOIN episodic_memories ${alias} ON ${alias}.group_key = ANY(${groups}::text[]) AND ${alias}.id = ${id} AND ${alias}.superseded_at IS NULL`;

/**
 * A left join to the memory of `id`, any version, where `when` holds: a memory's id names one
 * memory in every group, so a row that does not know its group finds the memory, and the group,
 * by the id alone.
 */
export const leftJoinMemoryById = (alias: string, id: string, when: string) =>
  `LEFT JOIN episodic_memories ${alias} ON ${when} AND ${alias}.id = ${id}`;
