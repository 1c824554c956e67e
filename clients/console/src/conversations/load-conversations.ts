import type { MemstreamClient, MessageMemory } from '@memstream/client';

export type Family = 'evermemos' | 'ark' | 'memory-service' | 'kaos';

export const FAMILY_NAMES: Readonly<Record<Family, string>> = {
  evermemos: 'EverMemOS',
  ark: 'ARK',
  'memory-service': 'memory-service',
  kaos: 'KAOS',
};

export interface ConversationRow {
  readonly id: string;
  readonly family: Family;
  readonly title: string | null;
  /** Senders of its recent messages, and the owner where the API names one. */
  readonly people: readonly string[];
  readonly lastActivity: string | null;
  /** Messages of it among the caller's latest RECENT_WINDOW messages. */
  readonly recentMessages: number;
}

/** How many of the caller's latest messages, across every family, the list is built from. */
export const RECENT_WINDOW = 500;

/**
 * Every conversation the caller may read, whatever family wrote it. The API has no one listing
 * across families, so this joins what there is, each call answering only with what the caller
 * may see: the caller's latest messages in every family (the EverMemOS list is cross-family),
 * memory-service's conversations (titles, owners, and those without messages yet), and ARK's
 * sessions. A KAOS session's conversation id starts `kaos_` (the converter names it so); every
 * other conversation seen only through messages is listed as EverMemOS, the family whose list
 * shows it.
 */
export async function loadConversations(client: MemstreamClient, signal: AbortSignal): Promise<ConversationRow[]> {
  const [recent, titled, arkSessions] = await Promise.all([
    client.evermemos.list({ limit: RECENT_WINDOW }, { signal }),
    client.memoryService.conversations.list({ limit: 200 }, { signal }),
    client.ark.sessions({ signal }),
  ]);
  const ark = new Set(arkSessions);
  const rows = new Map<string, { title: string | null; people: Set<string>; last: string | null; count: number }>();
  const rowOf = (id: string) => {
    let row = rows.get(id);
    if (!row) rows.set(id, (row = { title: null, people: new Set(), last: null, count: 0 }));
    return row;
  };
  for (const m of recent.result.memories as MessageMemory[]) {
    const row = rowOf(m.group_id);
    row.count++;
    row.title ??= m.group_name ?? null;
    if (m.user_id) row.people.add(m.user_id);
    if (row.last === null || m.timestamp > row.last) row.last = m.timestamp;
  }
  const memoryService = new Set<string>();
  for (const c of titled.data) {
    memoryService.add(c.id);
    const row = rowOf(c.id);
    row.title = c.title ?? row.title;
    if (c.ownerUserId) row.people.add(c.ownerUserId);
    row.last ??= c.updatedAt;
  }
  for (const id of ark) rowOf(id);
  return [...rows.entries()]
    .map(([id, r]) => ({
      id,
      family: familyOf(id, memoryService, ark),
      title: r.title,
      people: [...r.people].sort(),
      lastActivity: r.last,
      recentMessages: r.count,
    }))
    .sort((a, b) => (b.lastActivity ?? '').localeCompare(a.lastActivity ?? '') || a.id.localeCompare(b.id));
}

function familyOf(id: string, memoryService: ReadonlySet<string>, ark: ReadonlySet<string>): Family {
  if (memoryService.has(id)) return 'memory-service';
  if (ark.has(id)) return 'ark';
  if (id.startsWith('kaos_')) return 'kaos';
  return 'evermemos';
}

export interface ConversationFilter {
  readonly family?: string;
  readonly group?: string;
  readonly person?: string;
  /** Active on or after this day (YYYY-MM-DD). */
  readonly from?: string;
  /** Active on or before this day. */
  readonly to?: string;
}

export function filterConversations(rows: readonly ConversationRow[], f: ConversationFilter): ConversationRow[] {
  const group = f.group?.trim().toLowerCase();
  const person = f.person?.trim().toLowerCase();
  return rows.filter((r) => {
    if (f.family && r.family !== f.family) return false;
    if (group && !r.id.toLowerCase().includes(group) && !(r.title ?? '').toLowerCase().includes(group)) return false;
    if (person && !r.people.some((p) => p.toLowerCase().includes(person))) return false;
    const day = r.lastActivity?.slice(0, 10);
    if (f.from && (!day || day < f.from)) return false;
    if (f.to && (!day || day > f.to)) return false;
    return true;
  });
}
