import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { principalOf, writeOriginOf } from '@memstream/http';
import { actorOf, type Writer } from '@memstream/ingest';
import {
  findConversation,
  findInView,
  type ViewPosition,
  findMembership,
  groupOfConversation,
  listView,
  standingOf,
  viewSegments,
  type ConversationRecord,
  type MemoryServiceStoredMessage,
  type Store,
  type ViewFilter,
} from '@memstream/store';
import {
  TOPICS,
  levelRefusal,
  type AccessLevel,
  type MemoryServiceInput,
  type MemoryServiceMessage,
  type Refusal,
  type RequestOutcome,
  type Standing,
} from '@memstream/schemas';
import { outcomeOrStillApplying, type StillApplying } from './outcome-or-still-applying.js';

export interface OpsDeps {
  readonly store: Store;
  readonly write: Writer;
  /**
   * What a person who is not a member learns of a conversation that exists. `not_found` (the
   * platform's rule, and the document layout's): nothing, it answers as an unknown id.
   * `forbidden` (the code layout, as the real memory-service answers its clients): 403.
   */
  readonly strangers?: 'not_found' | 'forbidden';
}

/**
 * What both layouts of the family do, once: access checks, reads of a conversation's view, and
 * writes as events through Kafka, held until the converter has applied them. The routes only
 * parse their layout's request and shape its answer.
 */
export function conversationOps(deps: OpsDeps) {
  const standing = (request: FastifyRequest, conversationId: string): Promise<Standing> =>
    standingOf(deps.store, actorOf(principalOf(request)), conversationId);

  /** Refuses a person who is not a member: 404, or 403 where the layout tells strangers (`strangers`). */
  const refuseStranger = async (conversationId: string, action: string): Promise<never> => {
    if (deps.strangers === 'forbidden' && (await findConversation(deps.store, conversationId)))
      throw new AppError('FORBIDDEN', `${action}: you are not a member of this conversation`);
    throw refusalError({ code: 'RESOURCE_NOT_FOUND', message: 'Conversation not found' }, conversationId);
  };

  /** The conversation and the caller's standing; a stranger is refused as refuseStranger says. */
  const require = async (request: FastifyRequest, conversationId: string, needed: AccessLevel, action: string) => {
    const held = await standing(request, conversationId);
    if (held === undefined) return refuseStranger(conversationId, action);
    const refused = levelRefusal(held, needed, action);
    if (refused) throw refusalError(refused, conversationId);
    const principal = principalOf(request);
    const conversation = await findConversation(
      deps.store,
      conversationId,
      principal.kind === 'user' ? principal.userId : undefined,
    );
    if (!conversation)
      throw refusalError({ code: 'RESOURCE_NOT_FOUND', message: 'Conversation not found' }, conversationId);
    return { conversation, standing: held };
  };

  /** Publishes one event of the family and waits for the converter's outcome. */
  const send = async <T extends MemoryServiceInput['type']>(
    request: FastifyRequest,
    type: T,
    data: Extract<MemoryServiceInput, { type: T }>['data'],
  ): Promise<RequestOutcome | StillApplying> => {
    const written = await deps.write(
      writeOriginOf(request),
      TOPICS.conversationInput,
      { type, data, source: 'memory-service' } as never,
      true,
    );
    return outcomeOrStillApplying(written, data.conversation_id);
  };

  return {
    standing,
    require,
    refuseStranger,
    send,
    groupOf: async (conversationId: string) =>
      (await groupOfConversation(deps.store, conversationId)) ?? conversationId,
    /**
     * The person a new conversation belongs to: the caller, or for an agent the user it names,
     * else the person whose token it sent (the memory-service makes the token's person the owner).
     */
    ownerFor(request: FastifyRequest, named?: string | null): string | null {
      const principal = principalOf(request);
      return principal.kind === 'agent' ? (named ?? principal.onBehalfOf ?? null) : principal.userId;
    },
    async conversation(request: FastifyRequest, id: string): Promise<ConversationRecord> {
      return (await require(request, id, 'reader', 'Reading')).conversation;
    },
    async page(
      conversationId: string,
      filter: ViewFilter,
      after: string | undefined,
      limit: number,
    ): Promise<{ items: MemoryServiceStoredMessage[]; nextCursor: string | null }> {
      const segments = await viewSegments(deps.store, conversationId);
      let position: ViewPosition | undefined;
      if (after !== undefined) {
        position = await findInView(deps.store, segments, after);
        if (!position) throw new AppError('RESOURCE_NOT_FOUND', `after: no message ${after} in this conversation`);
      }
      const { items, more } = await listView(deps.store, segments, filter, { after: position, limit });
      return { items, nextCursor: more ? items.at(-1)!.message_id : null };
    },
    async membershipOf(groupId: string, userId: string) {
      return findMembership(deps.store, groupId, userId);
    },
  };
}

export type ConversationOps = ReturnType<typeof conversationOps>;

export function refusalError(refusal: Refusal, id: string): AppError {
  return new AppError(
    refusal.code,
    refusal.code === 'RESOURCE_NOT_FOUND' ? `${refusal.message}: ${id}` : refusal.message,
    {
      ...(refusal.code === 'RESOURCE_NOT_FOUND'
        ? { details: { resource: refusal.message.startsWith('Membership') ? 'membership' : 'conversation', id } }
        : {}),
    },
  );
}

/** A new message as the family stores it. */
export function newMessage(
  fields: Partial<MemoryServiceMessage> & Pick<MemoryServiceMessage, 'role' | 'content'>,
): MemoryServiceMessage {
  return {
    message_id: randomUUID(),
    visibility: 'user',
    channel: 'history',
    client_id: null,
    user_id: null,
    epoch: null,
    metadata: {},
    parent_message_id: null,
    created_at: new Date().toISOString(),
    ...fields,
  };
}
