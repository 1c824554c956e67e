import { z } from 'zod';
import { SafeId } from './ids.js';
import { IsoInstant } from './iso-instant.js';

/**
 * One group-chat message as the EverMemOS memories API takes it (spec 001). The same object is
 * the `data` of a `group_chat.message.received` event, which Kafka producers may write directly.
 */
export const ReferItem = z.union([z.string().min(1), z.object({ message_id: z.string().min(1) }).loose()]);

export const GroupChatMessage = z
  .object({
    group_id: SafeId.optional().meta({
      description: 'Group; absent means a private chat, stored as conversation private:<sender>',
    }),
    group_name: z.string().max(1000).optional(),
    message_id: z.string().min(1).max(255).meta({
      description: 'Unique within the group: a second message with the same id is a duplicate and is not stored',
    }),
    create_time: IsoInstant.meta({ description: 'ISO 8601 date-time; without a zone it is UTC' }),
    sender: z.string().min(1).max(255).meta({ description: 'Sender user id' }),
    sender_name: z
      .string()
      .max(1000)
      .optional()
      .meta({ description: 'Defaults to the name in conversation metadata, then to sender' }),
    content: z.string(),
    refer_list: z
      .array(ReferItem)
      .optional()
      .meta({ description: 'Referenced message ids, as strings or objects with a message_id' }),
  })
  .superRefine(rejectNul);
export type GroupChatMessage = z.infer<typeof GroupChatMessage>;

/**
 * PostgreSQL text and jsonb cannot hold U+0000. Refusing it here makes it the client's 400 rather
 * than a write that fails in the converter after the client was told it was accepted.
 */
export function rejectNul(value: unknown, ctx: z.RefinementCtx): void {
  const path = findNul(value);
  if (path) ctx.addIssue({ code: 'custom', path, message: 'must not contain the NUL character (U+0000)' });
}

/** The path to the first NUL, built on the way back: every message passes here, and almost none has one. */
function findNul(value: unknown): PropertyKey[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? [] : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const k of Object.keys(value)) {
    if (k.includes('\u0000')) return [k];
    const found = findNul((value as Record<string, unknown>)[k]);
    if (found) return [k, ...found];
  }
  return undefined;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** ISO 8601 with or without a zone; without one it is UTC (the spec's examples mix both). */
export function parseCreateTime(value: string): Date | undefined {
  const v = value.trim();
  if (!ISO_8601.test(v)) return undefined;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(v) && v.length > 10;
  const normalized = v.replace(' ', 'T') + (hasZone ? '' : v.length > 10 ? 'Z' : 'T00:00:00Z');
  const date = new Date(normalized);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * A message without a group is a private chat with its sender. Its conversation id is derived
 * from the sender alone, so every private message of one sender lands in one stable conversation.
 */
export function conversationIdOf(message: Pick<GroupChatMessage, 'group_id' | 'sender'>): string {
  return message.group_id ?? `${PRIVATE_CHAT_PREFIX}${message.sender}`;
}

/** The prefix of a private chat's id: `private:<person>` is that person's, and only theirs to claim. */
export const PRIVATE_CHAT_PREFIX = 'private:';

/** True when the id names some other person's private chat. */
export function isOthersPrivateChat(conversationId: string, userId: string): boolean {
  return conversationId.startsWith(PRIVATE_CHAT_PREFIX) && conversationId !== `${PRIVATE_CHAT_PREFIX}${userId}`;
}

export function referencedIds(message: Pick<GroupChatMessage, 'refer_list'>): string[] {
  return (message.refer_list ?? []).map((item) => (typeof item === 'string' ? item : item.message_id));
}
