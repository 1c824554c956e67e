import type { NewMessage } from '@memstream/store';
import type { MemoryServiceMessage, Role } from '@memstream/schemas';

/**
 * A memory-service message as a canonical one. Its content blocks are opaque to us, so the text
 * the memory consumers read (search, episodes, summaries) is what the text blocks say, and the
 * message as written is kept whole under `metadata.ms` for the family's own reads.
 */
export function fromMemoryServiceMessage(
  conversationId: string,
  m: MemoryServiceMessage,
  groupKey: string,
): NewMessage {
  const sender = m.user_id ?? m.client_id ?? m.role;
  return {
    conversation_id: conversationId,
    message_id: m.message_id,
    sender_id: sender,
    sender_name: sender,
    role: canonicalRole(m.role),
    content: textOf(m.content),
    created_at: new Date(m.created_at),
    refer_list: m.parent_message_id ? [m.parent_message_id] : [],
    metadata: { ms: m },
    source_api: 'memory-service',
    group_key: groupKey,
  };
}

function canonicalRole(role: MemoryServiceMessage['role']): Role {
  return role === 'agent' ? 'assistant' : role;
}

/** Plain strings and `{type: "text", text}` blocks, one per line; anything else as its JSON. */
export function textOf(content: readonly unknown[]): string {
  const parts = content.map((block) => {
    if (typeof block === 'string') return block;
    if (block !== null && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string')
      return (block as { text: string }).text;
    return JSON.stringify(block);
  });
  return parts.join('\n');
}
