import type { NewMessage, StoredConversationMeta } from '@memstream/store';
import { conversationIdOf, parseCreateTime, referencedIds, type GroupChatMessage, type Role } from '@memstream/schemas';

/**
 * EverMemOS group-chat message -> canonical message. Metadata of the group, when there is some,
 * fills what the message leaves out: the sender's name, whether the sender is an assistant, the
 * group's name, scene and time zone. `create_time` without a zone is UTC (spec 001); the
 * conversation's time zone is kept beside it for whoever renders local times.
 */
export function fromGroupChatMessage(m: GroupChatMessage, meta: StoredConversationMeta | undefined): NewMessage {
  const participant = meta?.user_details[m.sender];
  const groupName = m.group_name ?? meta?.name;
  return {
    conversation_id: conversationIdOf(m),
    message_id: m.message_id,
    sender_id: m.sender,
    sender_name: m.sender_name ?? participant?.full_name ?? m.sender,
    role: roleOf(participant?.role),
    content: m.content,
    created_at: parseCreateTime(m.create_time)!, // the schema already refused anything else
    refer_list: referencedIds(m),
    metadata: {
      ...(groupName === undefined || groupName === '' ? {} : { group_name: groupName }),
      ...(meta ? { scene: meta.scene, timezone: meta.default_timezone } : {}),
    },
    source_api: 'evermemos',
  };
}

const ASSISTANT_ROLES = new Set(['assistant', 'ai', 'bot', 'agent']);

/** Participants are people unless their metadata says they are an assistant. */
function roleOf(participantRole: string | undefined): Role {
  return participantRole !== undefined && ASSISTANT_ROLES.has(participantRole.trim().toLowerCase())
    ? 'assistant'
    : 'user';
}
