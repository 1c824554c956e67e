import type { Fanout } from '@memstream/fanout';
import type { Logger } from '@memstream/logging';
import { audienceOfMessage, liveChannelOf, type CanonicalMessage, type LiveEvent } from '@memstream/schemas';

type LiveMessage = Extract<LiveEvent, { type: 'messages' }>['messages'][number];

/**
 * Tells the live readers of each conversation (ARK's session streams, on any replica) of messages
 * just stored, whichever family wrote them: a group's EverMemOS messages reach a stream of that
 * group at once instead of at its next heartbeat. Each message carries its audience, so a stream
 * passes over what its reader may not see. Sent after the commit; a lost notice costs a reader
 * one heartbeat, since streams read what was stored after the last message they sent.
 */
export async function publishLiveMessages(
  fanout: Fanout,
  messages: readonly CanonicalMessage[],
  log: Logger,
): Promise<void> {
  const byConversation = new Map<string, LiveMessage[]>();
  for (const m of messages) {
    const list = byConversation.get(m.conversation_id) ?? [];
    list.push(liveMessageOf(m));
    byConversation.set(m.conversation_id, list);
  }
  await Promise.all(
    [...byConversation].map(([conversationId, list]) =>
      fanout
        .publish(
          liveChannelOf(conversationId),
          JSON.stringify({ type: 'messages', messages: list } satisfies LiveEvent),
        )
        .catch((err: unknown) => {
          log.warn({ err, conversationId }, 'live notification failed; streams catch up at their next heartbeat');
        }),
    ),
  );
}

/** ARK keeps the OpenAI message as posted; other families' messages read as {role, content}, as ARK's list shows them. */
function liveMessageOf(m: CanonicalMessage): LiveMessage {
  const meta = m.metadata as { query_id?: string | null; message?: Record<string, unknown> };
  return {
    seq: m.seq,
    created_at: m.created_at,
    query_id: meta.query_id ?? null,
    message: meta.message ?? { role: m.role, content: m.content },
    audience: audienceOfMessage(m.metadata),
  };
}
