import type {
  ConversationRecord,
  MembershipRecord,
  MemoryServiceStoredMessage,
  TransferRecord,
} from '@memstream/store';
import type { Standing } from '@memstream/schemas';

/**
 * How the family answers, in both layouts, as the memory-service does: no group id or metadata
 * (it keeps both to itself), and a field without a value left out rather than sent as null. A
 * caller who reaches everything (an agent key, the local user) is shown `owner`, the level whose
 * rights they have; a member sees their level.
 */
export function conversationView(c: ConversationRecord, standing: Standing) {
  return withoutNulls({
    id: c.id,
    title: c.title,
    ownerUserId: c.owner_user_id,
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
    lastMessagePreview: c.last_message_preview,
    accessLevel: c.access_level ?? (standing === 'unrestricted' ? 'owner' : (standing ?? null)),
    forkedAtMessageId: c.forked_at_message_id,
    forkedAtConversationId: c.forked_at_conversation_id,
  });
}

/** A conversation of a fork tree as `GET /{id}/forks` lists it; the root has no `forkedAt*`. */
export function forkView(c: ConversationRecord) {
  return withoutNulls({
    conversationId: c.id,
    forkedAtMessageId: c.forked_at_message_id,
    forkedAtConversationId: c.forked_at_conversation_id,
    title: c.title,
    createdAt: c.created_at.toISOString(),
  });
}

/** The code layout's message: opaque content blocks on a channel; no `userId` or `epoch` when it has none. */
export function codeMessageView(m: MemoryServiceStoredMessage) {
  return withoutNulls({
    id: m.message_id,
    conversationId: m.conversation_id,
    userId: m.ms.user_id,
    channel: m.ms.channel,
    epoch: m.ms.epoch,
    content: m.ms.content,
    createdAt: m.ms.created_at,
  });
}

type NonNullFields<T> = { [K in keyof T as null extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as null extends T[K] ? K : never]?: Exclude<T[K], null>;
};

/** The memory-service (Jackson, non-null inclusion) leaves out what it has no value for. */
function withoutNulls<T extends Record<string, unknown>>(fields: T): NonNullFields<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== null && v !== undefined),
  ) as NonNullFields<T>;
}

/** The document layout's message: role, visibility, text content and its place in the conversation. */
export function documentMessageView(m: MemoryServiceStoredMessage) {
  return {
    id: m.message_id,
    conversationId: m.conversation_id,
    userId: m.ms.user_id,
    role: m.ms.role,
    visibility: m.ms.visibility,
    channel: m.ms.channel,
    content: m.content_text,
    contentBlocks: m.ms.content,
    metadata: m.ms.metadata,
    parentMessageId: m.ms.parent_message_id,
    sequence: m.seq,
    createdAt: m.ms.created_at,
  };
}

export function membershipView(
  conversationId: string,
  m: Pick<MembershipRecord, 'user_id' | 'access_level' | 'created_at'>,
) {
  return { conversationId, userId: m.user_id, accessLevel: m.access_level, createdAt: m.created_at.toISOString() };
}

export function transferView(
  t: Pick<TransferRecord, 'id' | 'conversation_id' | 'from_user_id' | 'to_user_id' | 'status' | 'created_at'>,
) {
  return {
    id: t.id,
    conversationId: t.conversation_id,
    fromUserId: t.from_user_id,
    toUserId: t.to_user_id,
    status: t.status,
    createdAt: t.created_at.toISOString(),
  };
}
