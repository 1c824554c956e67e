import type { MemstreamClient, MessageMemory } from '@memstream/client';

/** A conversation as the tools and resources list it. */
export interface ConversationSummary {
  readonly conversation_id: string;
  readonly title: string | null;
  readonly last_message_at: string | null;
  readonly recent_messages: number;
}

/** How many of the caller's latest messages the listing looks through. */
const RECENT_WINDOW = 500;

/**
 * The conversations the caller has, most recently active first. memstream has no one listing
 * across its families (memory-service lists only its own conversations), so this joins two: the
 * conversations of the caller's latest messages in every family (the EverMemOS message list is
 * cross-family), and the memory-service conversations, which carry titles and may have no
 * messages yet.
 */
export async function listConversations(client: MemstreamClient, limit: number): Promise<ConversationSummary[]> {
  // Both asked at once, but a failure is reported in a fixed order: with Promise.all the refusal
  // that happened to arrive first was the one told (EverMemOS's UNAUTHENTICATED one time,
  // memory-service's unauthorized the next), and a tool's answer must not depend on a race.
  const [recentAnswer, titledAnswer] = await Promise.allSettled([
    client.evermemos.list({ limit: RECENT_WINDOW }),
    client.memoryService.conversations.list({ limit: 200 }),
  ]);
  if (recentAnswer.status === 'rejected') throw recentAnswer.reason;
  if (titledAnswer.status === 'rejected') throw titledAnswer.reason;
  const [recent, titled] = [recentAnswer.value, titledAnswer.value];
  const byId = new Map<string, { title: string | null; last: string | null; count: number }>();
  for (const m of recent.result.memories as MessageMemory[]) {
    const seen = byId.get(m.group_id) ?? { title: m.group_name ?? null, last: m.timestamp, count: 0 };
    seen.count++;
    byId.set(m.group_id, seen);
  }
  for (const c of titled.data) {
    const seen = byId.get(c.id);
    byId.set(c.id, { title: c.title ?? seen?.title ?? null, last: seen?.last ?? c.updatedAt, count: seen?.count ?? 0 });
  }
  return [...byId.entries()]
    .map(([id, s]) => ({ conversation_id: id, title: s.title, last_message_at: s.last, recent_messages: s.count }))
    .sort((a, b) => (b.last_message_at ?? '').localeCompare(a.last_message_at ?? ''))
    .slice(0, limit);
}

/** A conversation's latest messages, oldest first, as lines a model reads easily. */
export async function conversationText(
  client: MemstreamClient,
  conversationId: string,
  limit: number,
): Promise<{ text: string; messages: MessageMemory[]; total: number }> {
  const page = await client.evermemos.list({ group_id: conversationId, limit });
  const messages = (page.result.memories as MessageMemory[]).slice().reverse();
  const lines = messages.map((m) => `[${m.timestamp}] ${m.sender_name ?? m.user_id} (${m.message_id}): ${m.content}`);
  const header = `Conversation ${conversationId}: ${page.result.total_count} messages${page.result.has_more ? `, the latest ${messages.length} shown` : ''}`;
  return { text: [header, ...lines].join('\n'), messages, total: page.result.total_count };
}
