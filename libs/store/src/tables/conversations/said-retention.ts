import type { Queryable } from '../../store.js';
import { noRetentionCounts, type RetentionBatch } from '../../participant/retention-counts.js';
import type { RetainPass } from '../../participant/participant.js';
import { retentionScopeSql } from './retention-scope.js';
import { deleteSummariesOf } from '../memories/summary-memory.js';
import { deleteEventsBefore, hasEventsBefore, isKaosSession } from '../kaos/kaos-sql.js';

/**
 * What was said, as retention removes it: a conversation's messages and, in a KAOS session, its
 * events. An event and the message it became are one thing said, so both kinds (messages,
 * kaosEvents) walk the same conversations and remove the two together.
 */

/**
 * Messages (and, in KAOS sessions, events) older than the cutoff, in up to `batchSize`
 * conversations, with the cascade of an erasure: search rows and vectors go, the episodes holding
 * them are extracted again from what is left (their memories removed now) or removed when nothing
 * is left, and the conversation's rolling summaries, which drew on those words, are removed (the
 * next message summarizes anew). `kaosOnly` limits it to KAOS sessions (RETENTION_KAOS_EVENTS).
 */
export async function expireSaid(tx: Queryable, o: RetainPass & { kaosOnly: boolean }): Promise<RetentionBatch> {
  // Conversations in id order from where the last batch stopped, each probed on its (conversation,
  // time) index: a batch costs what it finds, not a scan of every old message still to go. The
  // probes are correlated on the shard column, which Citus pushes down to each shard.
  const params: unknown[] = [o.cutoff, o.batchSize, o.after ?? ''];
  const kaos = o.kaosOnly ? `AND ${isKaosSession('c.id')}` : '';
  // Message retention takes the events that became messages; tool and delegation events are no
  // messages and go only with RETENTION_KAOS_EVENTS.
  const allEvents = o.kaosOnly;
  const { rows } = await tx.query<{ conversation_id: string }>(
    `SELECT c.id AS conversation_id FROM conversations c
     WHERE c.id > $3 ${kaos} AND ${retentionScopeSql('c.id', params, o.scope)}
       AND (EXISTS (SELECT 1 FROM messages m
                     WHERE m.group_key = c.group_key AND m.conversation_id = c.id AND m.created_at < $1)
            -- a KAOS session is its own group: its events' shard column is the conversation's
            OR ${hasEventsBefore('c.group_key', 'c.id', '$1', allEvents)})
     ORDER BY c.id LIMIT $2`,
    params,
  );
  const counts = noRetentionCounts();
  for (const { conversation_id: conversationId } of rows) {
    const forgotten = await o.forgetMessagesBefore(tx, conversationId, o.cutoff);
    counts.searchRows += forgotten.deletedMessageSearchRows + forgotten.deletedMemorySearchRows;
    counts.messages += forgotten.deletedMessages;
    counts.episodicMemories += forgotten.deletedMemories;
    counts.episodesRebuilt += forgotten.episodesReopened;
    counts.episodes += forgotten.episodesDeleted;
    counts.kaosEvents += await deleteEventsBefore(tx, conversationId, o.cutoff, allEvents);
    if (forgotten.deletedMessages > 0)
      counts.summaries += await deleteSummariesOf(tx, conversationId, { keepInProgress: true });
  }
  return {
    counts,
    finished: rows.length < o.batchSize,
    conversationIds: [],
    after: rows.at(-1)?.conversation_id,
  };
}
