import type { CanonicalMessage, EpisodicMemory } from '@memstream/schemas';
import type { SearchHit } from '@memstream/store';
import type { ExplainedHit } from '@memstream/search';

/** A stored message as the EverMemOS memory list shows it. */
export function messageView(m: CanonicalMessage) {
  return {
    memory_type: 'message' as const,
    message_id: m.message_id,
    group_id: m.conversation_id,
    group_name: typeof m.metadata['group_name'] === 'string' ? m.metadata['group_name'] : undefined,
    user_id: m.sender_id,
    sender_name: m.sender_name,
    timestamp: m.created_at,
    content: m.content,
    refer_list: m.refer_list,
    sequence: m.seq,
  };
}

/**
 * An episodic memory: the group's narrative (`user_id` null) or one participant's. Beside our own
 * fields, EverMemOS's names for them: `summary` (the narrative), `episode_id` (the memory's id, as
 * in EverMemOS), `subject` (the title), `start_time`, and `memcell_event_id_list`, the episode it
 * was made from (EverMemOS's MemCell), which a delete by `event_id` takes.
 */
export function episodicView(m: EpisodicMemory) {
  return {
    memory_type: 'episodic_memory' as const,
    id: m.id,
    episode_id: m.id,
    group_id: m.conversation_id,
    user_id: m.user_id,
    title: m.title,
    subject: m.title,
    content: m.content,
    summary: m.content,
    timestamp: m.occurred_at,
    start_time: m.occurred_at,
    end_time: m.ended_at,
    memcell_event_id_list: [String(m.episode_id)],
    message_ids: m.message_ids,
    participants: m.participants,
    version: m.version,
    extractor: m.extractor,
  };
}

/**
 * A message no episode holds yet, as EverMemOS lists its pending messages: with a record `id`
 * (group and sequence number) and the `request_id` of the write that stored it, null here (the
 * request's id lives only in its status record, which expires).
 */
export function pendingView(m: CanonicalMessage) {
  return {
    ...messageView(m),
    id: `${m.conversation_id}:${m.seq}`,
    request_id: null,
    sender: m.sender_id,
    message_create_time: m.created_at,
    created_at: m.stored_at,
    updated_at: m.stored_at,
  };
}

/**
 * Hits as EverMemOS answers a search: one `{group_id: [memory, ...]}` per group, the group with the
 * best hit first and each group's memories in time order, `scores` alike, `importance_scores` the
 * best score of each group.
 */
export function groupedHits(hits: readonly SearchHit[]) {
  const groups = new Map<string, SearchHit[]>();
  for (const h of hits) groups.set(h.conversation_id, [...(groups.get(h.conversation_id) ?? []), h]);
  const ordered = [...groups].map(
    ([group, members]) =>
      [group, [...members].sort((a, b) => a.occurred_at.getTime() - b.occurred_at.getTime())] as const,
  );
  return {
    memories: ordered.map(([group, members]) => ({ [group]: members.map(groupedHitView) })),
    scores: ordered.map(([group, members]) => ({ [group]: members.map((h) => rounded(h.score)) })),
    importance_scores: ordered.map(([, members]) => Math.max(...members.map((h) => rounded(h.score)))),
  };
}

/** One memory of a grouped answer: a hit with EverMemOS's names beside ours. */
function groupedHitView(h: SearchHit) {
  return {
    ...hitView(h),
    summary: h.content,
    ...(h.kind === 'episodic_memory' ? { episode_id: h.item_id } : {}),
    // the source of the item: EverMemOS lists its MemCells there, we the source messages
    ori_event_id_list: h.message_ids,
  };
}

function rounded(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}

/**
 * A search hit. A message is known by its message id (unique within its group), a memory by its
 * own id; `message_ids` are the source messages (a message's own id).
 */
export function hitView(h: SearchHit) {
  return {
    id: h.kind === 'message' ? h.message_ids[0]! : h.item_id,
    memory_type: h.kind,
    content: h.content,
    score: rounded(h.score),
    group_id: h.conversation_id,
    user_id: h.user_id,
    timestamp: h.occurred_at.toISOString(),
    message_ids: h.message_ids,
  };
}

/**
 * A hit with what its score is made of (POST search with `explain`): its place in each method's
 * list and the terms of the fusion, `fused` unrounded so the parts can be checked against it.
 */
export function explainedHitView(h: ExplainedHit) {
  const parts = h.parts;
  return {
    ...hitView(h),
    score_parts: parts
      ? {
          keyword: parts.keyword && { rank: parts.keyword.rank, score: parts.keyword.score },
          vector: parts.vector && { rank: parts.vector.rank, similarity: parts.vector.score },
          terms: parts.terms.map((t) => ({ name: t.name, weight: t.weight, value: t.value })),
          divisor: parts.divisor,
          fused: h.score,
        }
      : null,
  };
}
