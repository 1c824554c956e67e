import type { Queryable } from '../../store.js';
import { audienceIn } from '../memberships/conversation-access.js';
import { messageCount } from '../conversations/message-sql.js';
import { searchCounts } from '../search/search-sql.js';
import { lastEpisodeEnd } from './memory-sql.js';

export interface MemoryStats {
  readonly messages: number;
  /**
   * Messages whose search row has its vector (of some model). Every stored message is keyword-searchable
   * at once; this counts what the indexer has embedded since.
   */
  readonly indexed_messages: number;
  /** Search rows (messages and memories) whose vector is the given model's. */
  readonly current_vectors: number;
  readonly search_items: number;
  readonly episodes: number;
  readonly episodes_extracted: number;
  readonly episodic_memories: number;
  /** Stored messages after the last episode (its open span). */
  readonly open_messages: number;
}

/**
 * Where a group stands in memory formation: stored, indexed, episodes and memories. With
 * `audiences` (see audienceIn), messages and search rows the reader may not see are not counted:
 * a count is enough to tell a member that agent-only messages exist and how many. Episodes and
 * memories are made only from what every member may read, so they are counted whole.
 */
export async function memoryStats(
  q: Queryable,
  conversationId: string,
  model: string,
  audiences?: readonly string[] | undefined,
): Promise<MemoryStats> {
  const params: unknown[] = [conversationId, model];
  const shown = audiences === undefined ? '' : `AND ${audienceIn('audience', params, audiences)}`;
  const { rows } = await q.query<MemoryStats>(
    `SELECT
       ${messageCount('$1', shown)}::int8 AS messages,
       ${searchCounts('$1', '$2', shown)},
       (SELECT count(*) FROM episodes WHERE conversation_id = $1)::int8 AS episodes,
       (SELECT count(*) FROM episodes WHERE conversation_id = $1 AND status = 'extracted')::int8 AS episodes_extracted,
       (SELECT count(*) FROM episodic_memories WHERE conversation_id = $1 AND superseded_at IS NULL)::int8 AS episodic_memories,
       ${messageCount('$1', `${shown} AND seq > ${lastEpisodeEnd('$1')}`)}::int8 AS open_messages`,
    params,
  );
  return rows[0]!;
}
