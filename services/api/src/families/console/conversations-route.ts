import { AppError } from '@memstream/errors';
import type { ZodApp } from '@memstream/http';
import { ConsoleConversationPage, ConsoleConversationsQuery, type ConsoleConversation } from '@memstream/schemas';
import { listConversationsAcrossFamilies, type ConversationAcrossFamilies, type Store } from '@memstream/store';
import { audiencesFor, personOf } from '../../shared/access.js';
import { consoleDocs as docs } from './docs.js';

/**
 * `GET /v1/console/conversations`: every conversation the caller may read, of every family, in
 * one list, most recently active first. A person sees what they are a member of (shared
 * memory-service conversations included) and their own private chats, as in every family's
 * listing; an agent or the local user sees every live conversation. Admin and auditor roles widen
 * nothing here: reading everyone's goes through /v1/admin/conversations, which is audited.
 */
export function registerConversationsRoute(reads: ZodApp, store: Store): void {
  reads.get(
    '/v1/console/conversations',
    docs.route({
      summary: 'Conversations of every family the caller may read, most recently active first',
      description:
        "memstream's addition. Filters combine; page with cursor=<nextCursor>. A person sees only the conversations they may read, whatever roles they hold.",
      querystring: ConsoleConversationsQuery,
      responses: { 200: ConsoleConversationPage },
    }),
    async (request) => {
      const q = request.query;
      const page = await listConversationsAcrossFamilies(store, {
        viewer: personOf(request),
        audiences: audiencesFor(request),
        family: q.family,
        group: q.group,
        person: q.person,
        from: q.from === undefined ? undefined : new Date(q.from),
        to: q.to === undefined ? undefined : new Date(q.to),
        after: q.cursor === undefined ? undefined : cursorFrom(q.cursor),
        limit: q.limit,
      });
      const last = page.items.at(-1);
      return {
        data: page.items.map(conversationView),
        nextCursor: page.more && last ? cursorOf(last) : null,
      };
    },
  );
}

function conversationView(c: ConversationAcrossFamilies): ConsoleConversation {
  return {
    id: c.id,
    family: c.source_api as ConsoleConversation['family'],
    groupId: c.group_id,
    title: c.title,
    owner: c.owner_user_id ?? c.kaos_user_id,
    forkedFrom: c.forked_at_conversation_id,
    session:
      c.kaos_session_id === null
        ? null
        : { agent: c.kaos_agent ?? '', sessionId: c.kaos_session_id, userId: c.kaos_user_id ?? '' },
    summaries: c.summaries,
    createdAt: c.created_at.toISOString(),
    lastActivity: c.updated_at.toISOString(),
  };
}

/** The end of year 9999 in microseconds: a cursor past it is none this listing made (and PostgreSQL's range ends). */
const LATEST_US = 253_402_300_799_999_999n;

/** Opaque to callers: the last row's exact activity time and id. */
const cursorOf = (c: ConversationAcrossFamilies) =>
  Buffer.from(JSON.stringify([c.activity_us, c.id])).toString('base64url');

function cursorFrom(cursor: string): { activityUs: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      /^\d{1,18}$/.test(value[0]) &&
      BigInt(value[0]) <= LATEST_US &&
      typeof value[1] === 'string' &&
      value[1].length <= 1000 &&
      !value[1].includes('\u0000')
    )
      return { activityUs: value[0], id: value[1] };
  } catch {
    // answered below, as any cursor this route did not make
  }
  throw new AppError('INVALID_PARAMETER', 'cursor: not a cursor this listing gave');
}
