import { z } from 'zod';
import { AccessLevel, GrantableLevel } from './access-level.js';
import { caseInsensitiveEnum } from './case-insensitive-enum.js';
import { MemoryServiceRole, MemoryServiceVisibility } from './conversation-events.js';
import { SafeId } from './ids.js';

/**
 * The memory-service family's HTTP payloads, for both layouts it is served in: the design
 * document's (`/v1/user/...`, `/v1/agent/...`) and the January 2026 code's (`/v1/conversations/...`).
 */
/** NUL cannot be stored (PostgreSQL text): ids and texts say so in their pattern. */
const Id = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000]+$/);
const Metadata = z.record(z.string(), z.unknown());
const Title = z.string().max(1000).nullable().optional();

/** A conversation id in a path follows the common id rule (an append may create the conversation it names). */
export const ConversationIdParams = z.object({ conversationId: SafeId });
export const MessageIdParams = ConversationIdParams.extend({ messageId: Id });
export const MemberParams = ConversationIdParams.extend({ userId: Id });
export const TransferIdParams = z.object({ transferId: Id });

export const CreateConversationRequest = z.object({ title: Title, metadata: Metadata.optional() });

export const ListConversationsQuery = z.object({
  mode: z.enum(['all', 'roots', 'latest-fork']).default('all'),
  after: Id.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(20),
  query: z.string().min(1).max(500).optional(),
});

/** A channel as the memory-service takes it: any case in, lower case out. */
const Channel = caseInsensitiveEnum(['history', 'memory', 'summary'], 'channel');

export const ListMessagesQuery = z.object({
  after: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  /** Left out: a person gets history; an agent every channel it may read (its own memory, not another agent's). */
  channel: Channel.optional(),
  /** For the memory channel: latest, all, or an epoch number. */
  epoch: z.union([z.enum(['latest', 'all']), z.coerce.number().int().min(0)]).default('latest'),
});

/** Document layout: what a person writes. */
export const CreateUserMessageRequest = z.object({ content: z.string().min(1), metadata: Metadata.optional() });

/** Document layout: what an agent writes, in bulk. */
export const CreateAgentMessagesRequest = z.object({
  messages: z
    .array(
      z.object({
        role: MemoryServiceRole,
        visibility: MemoryServiceVisibility.default('user'),
        /** Plain text, or content blocks kept as given. */
        content: z.union([z.string().min(1), z.array(z.unknown()).min(1).max(10_000)]),
        metadata: Metadata.optional(),
        parentMessageId: Id.nullable().optional(),
        channel: z.enum(['history', 'memory']).default('history'),
        userId: Id.nullable().optional(),
      }),
    )
    .min(1)
    .max(1000),
});

/** JavaScript's white space (what `trim` takes away), written out for the document's other readers. */
const BLANK_CHARS = '\\t\\n\\v\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';
/** Some text: a character that is not white space, anywhere (JSON Schema patterns are not anchored). */
const SOME_TEXT = { type: 'string', pattern: `[^${BLANK_CHARS}]` };

/**
 * Code layout: one message, from a person or an agent. Summaries are written through their own
 * endpoint, so `summary` is no channel here. A person's message needs a text block with some
 * text (the real service answers 400 otherwise): the document says so for every caller, as it
 * cannot tell callers apart; an agent may also send blocks without text.
 */
export const CreateMessageRequest = z.object({
  userId: Id.nullable().optional(),
  channel: caseInsensitiveEnum(['history', 'memory'], 'channel').default('history'),
  epoch: z.number().int().min(0).nullable().optional(),
  content: z
    .array(z.unknown())
    .max(10_000)
    .meta({
      description: "Content blocks; a person's message needs one with some text (a string, or an object's `text`)",
      contains: {
        anyOf: [SOME_TEXT, { type: 'object', properties: { text: SOME_TEXT }, required: ['text'] }],
      },
    }),
});

/** Code layout: the memory an agent wants for its current epoch, in order, every message on the memory channel. */
export const SyncMessagesRequest = z.object({
  messages: z
    .array(
      CreateMessageRequest.extend({
        channel: caseInsensitiveEnum(['memory'], 'channel'),
        // an agent's memory: no person writes it, so no text is required of it
        content: z.array(z.unknown()).max(10_000),
      }),
    )
    .min(1)
    .max(1000),
});

/** Both layouts: the document's request also carries the fork's first message. */
export const ForkRequest = z.object({ title: Title, newMessage: CreateUserMessageRequest.optional() });

export const ShareRequest = z.object({ userId: Id, accessLevel: GrantableLevel });
export const UpdateMembershipRequest = z.object({ accessLevel: GrantableLevel });
export const TransferOwnershipRequest = z.object({ newOwnerUserId: Id });

/** Answers, for the documentation. A field the memory-service would send as null is left out, as it does. */
export const ConversationBody = z.object({
  id: z.string(),
  title: z.string().optional(),
  ownerUserId: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastMessagePreview: z.string().optional(),
  accessLevel: AccessLevel.optional(),
  forkedAtMessageId: z.string().optional(),
  forkedAtConversationId: z.string().optional(),
});
export const MembershipBody = z.object({
  conversationId: z.string(),
  userId: z.string(),
  accessLevel: AccessLevel,
  createdAt: z.string(),
});
export const TransferBody = z.object({
  id: z.string(),
  conversationId: z.string(),
  fromUserId: z.string(),
  toUserId: z.string(),
  status: z.enum(['pending', 'accepted', 'declined', 'superseded', 'withdrawn', 'cancelled']),
  createdAt: z.string(),
});

/**
 * The memory-service's later transfer API (`/v1/ownership-transfers`, from its commit a9c6936a):
 * an offer names its conversation in the body, and exists only while pending.
 */
export const CreateOwnershipTransferRequest = z.object({ conversationId: SafeId, newOwnerUserId: Id });
export const ListOwnershipTransfersQuery = z.object({
  /** The caller's side of the offers: made (sender), received (recipient) or both. */
  role: z.enum(['sender', 'recipient', 'all']).default('all'),
  /** The last transfer of the previous page. */
  afterCursor: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
/** A pending offer; `conversationTitle` only for a caller who may read the conversation. */
export const OwnershipTransferBody = z.object({
  id: z.string(),
  conversationId: z.string(),
  conversationTitle: z.string().optional(),
  fromUserId: z.string(),
  toUserId: z.string(),
  createdAt: z.string(),
});
export const OwnershipTransferPage = z.object({
  data: z.array(OwnershipTransferBody),
  afterCursor: z.string().nullable(),
});

export const SearchMessagesRequest = z.object({
  query: z.string().min(1).max(2000),
  topK: z.number().int().min(1).max(100).default(20),
  /** Only these conversations (still only those the caller may read). */
  conversationIds: z.array(Id).max(1000).nullable().optional(),
  /** Only messages written before this one. */
  before: Id.nullable().optional(),
});

/** An agent's summary of the conversation up to a message; it also sets the conversation's title. */
export const CreateSummaryRequest = z.object({
  title: z.string().min(1).max(1000),
  summary: z.string().min(1),
  untilMessageId: Id,
  summarizedAt: z.iso.datetime({ offset: true }),
});

export const ContextQuery = z.object({
  afterMessageId: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});

/** The response resumer: tokens of the answer in progress. */
export const RecordResponseRequest = z.object({
  tokens: z.array(z.string().max(100_000)).max(10_000),
  /** The response is complete: readers get `done` and their streams end. */
  done: z.boolean().default(false),
});
