import { z } from 'zod';
import { AccessLevel } from './access-level.js';
import { envelopeOf } from './envelope.js';
import { KaosEventsAppended, KaosSessionCreated, KaosSessionDeleted, KaosSessionsCleaned } from './kaos-events.js';

/**
 * The memory-service family's writes, as events on the conversation input topic (shared with
 * KAOS's). They are keyed by the conversation's group (a conversation and its forks), so a
 * membership change, a deletion and the appends of every fork of one tree are applied in one order.
 */
const Id = z.string().min(1).max(255);

export const MemoryServiceRole = z.enum(['user', 'assistant', 'system', 'tool', 'agent']);
export type MemoryServiceRole = z.infer<typeof MemoryServiceRole>;
export const MemoryServiceVisibility = z.enum(['user', 'agent', 'system']);
export type MemoryServiceVisibility = z.infer<typeof MemoryServiceVisibility>;
/** history: the conversation people see; memory: an agent's own working memory; summary: agent-written summaries. */
export const MemoryServiceChannel = z.enum(['history', 'memory', 'summary']);
export type MemoryServiceChannel = z.infer<typeof MemoryServiceChannel>;

/** One message as memory-service clients write it: opaque content blocks, kept as given. */
export const MemoryServiceMessage = z.object({
  message_id: Id,
  role: MemoryServiceRole,
  visibility: MemoryServiceVisibility,
  channel: MemoryServiceChannel,
  /** The agent (API key client id) that wrote it; memory-channel messages belong to it. */
  client_id: Id.nullable(),
  /** The person the message is from, or the person an agent answered. */
  user_id: Id.nullable(),
  epoch: z.number().int().min(0).nullable(),
  content: z.array(z.unknown()).max(10_000),
  metadata: z.record(z.string(), z.unknown()),
  parent_message_id: Id.nullable(),
  created_at: z.iso.datetime({ offset: true }),
});
export type MemoryServiceMessage = z.infer<typeof MemoryServiceMessage>;

const Scope = { conversation_id: Id, group_id: Id };

export const ConversationCreated = envelopeOf(
  'conversation.created',
  z.object({
    ...Scope,
    title: z.string().max(1000).nullable(),
    metadata: z.record(z.string(), z.unknown()),
    /** The person who owns the new group (null: nobody yet, as when an agent creates it). A fork has its group's. */
    owner_user_id: Id.nullable(),
    /** A fork: the conversation it was made from and the message it was made at (see the fork route). */
    fork: z.object({ from_conversation_id: Id, at_message_id: Id }).nullable(),
  }),
);
export type ConversationCreated = z.infer<typeof ConversationCreated>;

export const ConversationMessagesAppended = envelopeOf(
  'conversation.messages.appended',
  z.object({
    ...Scope,
    messages: z.array(MemoryServiceMessage).min(1).max(1000),
    /** The code layout creates a missing conversation on its first append, owned by `owner_user_id`. */
    create_if_missing: z.boolean(),
    owner_user_id: Id.nullable(),
    /** An agent's summary names the conversation: its new title. */
    title: z.string().max(1000).nullable().optional(),
    /** The title of a conversation this append creates (the memory-service takes its first message's start). */
    created_title: z.string().max(1000).nullable().optional(),
  }),
);
export type ConversationMessagesAppended = z.infer<typeof ConversationMessagesAppended>;

export const ConversationDeleted = envelopeOf('conversation.deleted', z.object(Scope));
export type ConversationDeleted = z.infer<typeof ConversationDeleted>;

/**
 * An admin's deletion or restoration of a whole group (the admin API), in any family. The API
 * checked the admin role, which lives in the caller's token: the converter applies it without
 * asking for a membership, and records it in the group's order like every other change.
 */
export const ConversationAdminChanged = envelopeOf(
  'conversation.admin.changed',
  z.object({ ...Scope, action: z.enum(['delete', 'restore']) }),
);
export type ConversationAdminChanged = z.infer<typeof ConversationAdminChanged>;

export const MembershipChanged = envelopeOf(
  'conversation.membership.changed',
  z.object({
    ...Scope,
    user_id: Id,
    /** share: a new member; update: a member's new level; revoke: no longer a member. */
    change: z.enum(['share', 'update', 'revoke']),
    access_level: AccessLevel.nullable(),
  }),
);
export type MembershipChanged = z.infer<typeof MembershipChanged>;

/** Who an ownership offer may go to: only a member of the group, or anyone who is not its owner. */
export const TransferRecipients = z.enum(['members', 'anyone']);
export type TransferRecipients = z.infer<typeof TransferRecipients>;

export const OwnershipTransfer = envelopeOf(
  'conversation.ownership.transfer',
  z.object({
    ...Scope,
    /** withdraw: the owner takes the offer back, or its recipient declines it (by the transfer's id). */
    action: z.enum(['request', 'accept', 'decline', 'withdraw']),
    /** For a request: the transfer's id and its recipient; for a withdrawal, the transfer's id. */
    transfer_id: Id.nullable(),
    new_owner_user_id: Id.nullable(),
    /**
     * For a request: who may be offered the group. The memory-service's first route
     * (`/{id}/transfer-ownership`, 1b5ccae3) offers it to anyone; its later `/v1/ownership-transfers`
     * only to a member. Left out by events written before the first rule was served: members.
     */
    recipients: TransferRecipients.optional(),
  }),
);
export type OwnershipTransfer = z.infer<typeof OwnershipTransfer>;

export const ConversationInput = z.discriminatedUnion('type', [
  ConversationCreated,
  ConversationMessagesAppended,
  ConversationDeleted,
  ConversationAdminChanged,
  MembershipChanged,
  OwnershipTransfer,
  // KAOS agent memory's writes share the topic: sessions are conversations too (see kaos-events.ts).
  KaosSessionCreated,
  KaosEventsAppended,
  KaosSessionDeleted,
  KaosSessionsCleaned,
]);
export type ConversationInput = z.infer<typeof ConversationInput>;
/** The memory-service family's own events on the topic. */
export type MemoryServiceInput = Exclude<ConversationInput, { type: `kaos.${string}` }>;
