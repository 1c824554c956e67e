import { z } from 'zod';
import { envelopeOf } from './envelope.js';
import { GroupChatMessage } from './group-chat-message.js';
import { CanonicalMessage } from './canonical-message.js';

export const GroupChatMessageReceived = envelopeOf('group_chat.message.received', GroupChatMessage);
export type GroupChatMessageReceived = z.infer<typeof GroupChatMessageReceived>;

export const MessageStored = envelopeOf('conversation.message.stored', CanonicalMessage);
export type MessageStored = z.infer<typeof MessageStored>;

/** Every event the platform moves, discriminated on `type`. */
export const PlatformEvent = z.discriminatedUnion('type', [GroupChatMessageReceived, MessageStored]);
export type PlatformEvent = z.infer<typeof PlatformEvent>;
