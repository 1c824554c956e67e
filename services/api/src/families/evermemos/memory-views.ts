import type { CanonicalMessage, EpisodicMemory } from '@memstream/schemas';
import type { SearchHit } from '@memstream/store';

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

/** An episodic memory: the group's narrative (`user_id` null) or one participant's. */
export function episodicView(m: EpisodicMemory) {
  return {
    memory_type: 'episodic_memory' as const,
    id: m.id,
    group_id: m.conversation_id,
    user_id: m.user_id,
    title: m.title,
    content: m.content,
    timestamp: m.occurred_at,
    end_time: m.ended_at,
    message_ids: m.message_ids,
    participants: m.participants,
    version: m.version,
    extractor: m.extractor,
  };
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
    score: Math.round(h.score * 1e6) / 1e6,
    group_id: h.conversation_id,
    user_id: h.user_id,
    timestamp: h.occurred_at.toISOString(),
    message_ids: h.message_ids,
  };
}
