import type { ConsoleConversation, MemstreamClient } from '@memstream/client';

export type Family = ConsoleConversation['family'];

export const FAMILY_NAMES: Readonly<Record<Family, string>> = {
  evermemos: 'EverMemOS',
  ark: 'ARK',
  'memory-service': 'memory-service',
  kaos: 'KAOS',
  // It starts no conversation: filtering by it keeps those it summarized (its windows).
  'memory-agent': 'Memory Agent (summarized)',
};

export type ConversationRow = ConsoleConversation;

export interface ConversationFilter {
  readonly family?: string;
  readonly group?: string;
  readonly person?: string;
  /** Active on or after this day (YYYY-MM-DD, UTC). */
  readonly from?: string;
  /** Active on or before this day. */
  readonly to?: string;
}

export interface ConversationPages {
  readonly rows: readonly ConversationRow[];
  readonly nextCursor: string | null;
}

/** Rows a page asks for. */
export const PAGE_SIZE = 50;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The day after a YYYY-MM-DD day, at midnight UTC: the list's `to` is exclusive. */
function dayAfter(day: string): string {
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString();
}

/**
 * One page of every conversation the caller may read, of every family, filtered by the server
 * (GET /v1/console/conversations): what the caller may not read is never sent, and the filters
 * apply to the whole list, not to a window of it.
 */
export async function loadConversations(
  client: MemstreamClient,
  filter: ConversationFilter,
  cursor: string | undefined,
  signal: AbortSignal,
): Promise<ConversationPages> {
  const family = filter.family && filter.family in FAMILY_NAMES ? (filter.family as Family) : undefined;
  const page = await client.console.conversations(
    {
      limit: PAGE_SIZE,
      ...(family ? { family } : {}),
      ...(filter.group?.trim() ? { group: filter.group.trim() } : {}),
      ...(filter.person?.trim() ? { person: filter.person.trim() } : {}),
      ...(filter.from && DAY.test(filter.from) ? { from: `${filter.from}T00:00:00Z` } : {}),
      ...(filter.to && DAY.test(filter.to) ? { to: dayAfter(filter.to) } : {}),
      ...(cursor ? { cursor } : {}),
    },
    { signal },
  );
  return { rows: page.data, nextCursor: page.nextCursor };
}
