import type { Queryable } from '../../store.js';
import { audienceIn, visibleTo } from '../memberships/conversation-access.js';
import { isMemberAsKnownTo, ownerOf } from '../memberships/membership-sql.js';
import { completedSummaries, hasCompletedSummary } from '../memories/memory-sql.js';
import { leftJoinKaosSession } from '../kaos/kaos-sql.js';

/** One conversation of any family, as a listing across families shows it. */
export interface ConversationAcrossFamilies {
  readonly id: string;
  readonly group_id: string;
  readonly source_api: string;
  readonly title: string | null;
  readonly owner_user_id: string | null;
  readonly forked_at_conversation_id: string | null;
  readonly kaos_agent: string | null;
  readonly kaos_session_id: string | null;
  readonly kaos_user_id: string | null;
  /** The Memory Agent's completed summaries of it (its windows). */
  readonly summaries: number;
  readonly created_at: Date;
  readonly updated_at: Date;
  /** updated_at in microseconds since the epoch, exact, for the cursor. */
  readonly activity_us: string;
}

export interface ConversationsAcrossFamiliesQuery {
  /** A person: only what they may read (see visibleTo). Undefined: every live conversation. */
  readonly viewer?: string | undefined;
  /** The agent-only content the caller may read (audienceIn); undefined: all of it. */
  readonly audiences?: readonly string[] | undefined;
  /**
   * The family that started it; `memory-agent`, which starts none (it reads what the others write),
   * keeps those it has summarized, its windows.
   */
  readonly family?: string | undefined;
  /** Part of the id, the KAOS session id or the title, any case. */
  readonly group?: string | undefined;
  /** A member, the KAOS session's user, or a sender of a message the caller may read. */
  readonly person?: string | undefined;
  /** Last active at or after. */
  readonly from?: Date | undefined;
  /** Last active before. */
  readonly to?: Date | undefined;
  /** The last row of the page before: its activity (microseconds) and id. */
  readonly after?: { readonly activityUs: string; readonly id: string } | undefined;
  readonly limit: number;
}

const like = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/**
 * Live conversations of every family, most recently active first, that the viewer may read:
 * one query over the conversations every family writes through the converter, so a memory-service
 * conversation shared with the viewer, a KAOS session, an ARK session and an EverMemOS group are
 * all filtered by the same access rule. `limit + 1` rows are read to know whether more follow.
 */
export async function listConversationsAcrossFamilies(
  q: Queryable,
  query: ConversationsAcrossFamiliesQuery,
): Promise<{ items: ConversationAcrossFamilies[]; more: boolean }> {
  const params: unknown[] = [];
  const where = ['c.deleted_at IS NULL'];
  if (query.viewer !== undefined) where.push(visibleTo('c.id', params, query.viewer));
  if (query.family === 'memory-agent')
    where.push(`(c.source_api = 'memory-agent' OR ${hasCompletedSummary('c.group_key', 'c.id')})`);
  else if (query.family !== undefined) where.push(`c.source_api = $${params.push(query.family)}`);
  if (query.group !== undefined) {
    const p = params.push(like(query.group));
    where.push(`(c.id ILIKE $${p} OR c.title ILIKE $${p} OR k.session_id ILIKE $${p})`);
  }
  if (query.person !== undefined) {
    const p = params.push(query.person);
    const shown = query.audiences === undefined ? '' : `AND ${audienceIn('m.audience', params, query.audiences)}`;
    const member = isMemberAsKnownTo('c.group_key', 'c.id', `$${p}`, params, query.viewer);
    where.push(`(k.user_id = $${p}
      OR ${member}
      OR EXISTS (SELECT 1 FROM messages m WHERE m.group_key = c.group_key AND m.conversation_id = c.id AND m.sender_id = $${p} ${shown}))`);
  }
  if (query.from !== undefined) where.push(`c.updated_at >= $${params.push(query.from)}`);
  if (query.to !== undefined) where.push(`c.updated_at < $${params.push(query.to)}`);
  if (query.after !== undefined) {
    const at = params.push(query.after.activityUs);
    const id = params.push(query.after.id);
    where.push(`(c.updated_at, c.id) < ('epoch'::timestamptz + $${at}::bigint * interval '1 microsecond', $${id})`);
  }
  const { rows } = await q.query<ConversationAcrossFamilies>(
    `SELECT c.id, c.group_key AS group_id, c.source_api, c.title, c.forked_at_conversation_id,
            ${ownerOf('c.group_key')} AS owner_user_id,
            k.agent AS kaos_agent, k.session_id AS kaos_session_id, k.user_id AS kaos_user_id,
            ${completedSummaries('c.group_key', 'c.id')} AS summaries,
            c.created_at, c.updated_at,
            (extract(epoch FROM c.updated_at) * 1000000)::bigint::text AS activity_us
       FROM conversations c
       ${leftJoinKaosSession('k', 'c.group_key', 'c.id')}
      WHERE ${where.join(' AND ')}
      ORDER BY c.updated_at DESC, c.id DESC
      LIMIT $${params.push(query.limit + 1)}`,
    params,
  );
  return { items: rows.slice(0, query.limit), more: rows.length > query.limit };
}
