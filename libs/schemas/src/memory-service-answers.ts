import { z } from 'zod';
import { MemoryServiceChannel, MemoryServiceRole, MemoryServiceVisibility } from './conversation-events.js';
import { ConversationBody, MembershipBody, TransferBody } from './memory-service-api.js';

/**
 * The memory-service family's answers beyond a single conversation, membership or transfer (see
 * memory-service-api.ts), for both layouts, exactly as the handlers send them: fastify serializes
 * through these, so a field left out here is not sent. The code layout leaves out a field without
 * a value, as the service does (Jackson's non-null inclusion); the document layout sends every
 * field, null where it has no value.
 */

/** Content blocks are the agent's own: kept and returned without interpretation. */
const ContentBlocks = z.array(z.unknown());

/** The code layout's message (the service's `Message`). */
export const CodeMessageBody = z.object({
  id: z.string(),
  conversationId: z.string(),
  userId: z.string().optional(),
  channel: MemoryServiceChannel,
  epoch: z.number().int().optional(),
  content: ContentBlocks,
  createdAt: z.string(),
});

/** The document layout's message: the text, and the blocks it came in, with its place in the conversation. */
export const DocumentMessageBody = z.object({
  id: z.string(),
  conversationId: z.string(),
  userId: z.string().nullable(),
  role: MemoryServiceRole,
  visibility: MemoryServiceVisibility,
  channel: MemoryServiceChannel,
  content: z.string().meta({ description: 'The text of the content blocks' }),
  contentBlocks: ContentBlocks,
  metadata: z.record(z.string(), z.unknown()),
  parentMessageId: z.string().nullable(),
  sequence: z.number().int(),
  createdAt: z.string(),
});

/** The cursor of the next page: the last id of this one, null on the last page. */
const NextCursor = z.string().nullable();

export const ConversationPage = z.object({ data: z.array(ConversationBody), nextCursor: NextCursor });
export const MembershipList = z.object({ data: z.array(MembershipBody) });
export const CodeMessagePage = z.object({ data: z.array(CodeMessageBody), nextCursor: NextCursor });
export const DocumentMessagePage = z.object({ data: z.array(DocumentMessageBody), nextCursor: NextCursor });

/** `POST /v1/agent/conversations/{id}/messages`: the messages stored, in order. */
export const DocumentMessageList = z.object({ data: z.array(DocumentMessageBody) });

/** The code layout's fork tree, root first; the root has no `forkedAt*`. */
export const CodeForkList = z.object({
  data: z.array(
    z.object({
      conversationId: z.string(),
      forkedAtMessageId: z.string().optional(),
      forkedAtConversationId: z.string().optional(),
      title: z.string().optional(),
      createdAt: z.string(),
    }),
  ),
});

/** The document layout's fork tree: `conversationId` is the tree's, `forkId` each conversation's own. */
export const DocumentForkList = z.object({
  data: z.array(
    z.object({
      conversationId: z.string(),
      forkId: z.string(),
      forkedFromMessageId: z.string().nullable(),
      forkedFromConversationId: z.string().nullable(),
      title: z.string().nullable(),
      createdAt: z.string(),
      isCurrentFork: z.boolean(),
    }),
  ),
});

/** A write Kafka has that was not applied when the wait ended: `id` is what it made or changed. */
export const MemoryServiceAcceptedBody = z
  .object({ status: z.enum(['accepted']), id: z.string(), requestId: z.string() })
  .meta({
    description:
      'Kafka has the write; applying it outlasted REQUEST_SYNC_TIMEOUT_MS and it will be applied (memstream addition)',
  });

/** An ownership offer's 202: the pending transfer once applied, or the accepted write while it is being applied. */
export const TransferOfferAnswer = z.union([TransferBody, MemoryServiceAcceptedBody]);

export const SyncResultBody = z.object({
  epoch: z.number().int(),
  noOp: z.boolean(),
  epochIncremented: z.boolean(),
  messages: z.array(CodeMessageBody).meta({ description: 'The messages this sync appended' }),
});

export const SearchResultsBody = z.object({
  data: z.array(z.object({ message: CodeMessageBody, score: z.number() })),
});

export const AgentContextBody = z.object({
  conversationId: z.string(),
  messages: z.array(DocumentMessageBody),
  nextAfterMessageId: z.string().nullable(),
});

export const ResponseStateBody = z.object({ state: z.enum(['none', 'in_progress', 'done', 'cancelled']) });
export const CancelledBody = z.object({ cancelled: z.boolean() });

/** The data of one event of a followed response: `token` has the text; `done` and `cancelled` none; `error` why it ended. */
export const ResponseEventData = z.union([
  z.object({ text: z.string() }),
  z.object({}),
  z.object({ error: z.string(), code: z.string() }),
]);
