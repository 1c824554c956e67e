import { createHash } from 'node:crypto';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportRecord } from '@memstream/schemas';

/** One memory as mem0's `get_all` returns it (the open-source server's and the platform's v1 shape). */
interface Mem0Memory {
  readonly id: string;
  readonly memory: string;
  readonly user_id?: string | null;
  readonly agent_id?: string | null;
  readonly created_at?: string | null;
  readonly updated_at?: string | null;
}

/**
 * mem0's `get_all` JSON (a list of memories, or `{"results": [...]}`) as a memstream export: each
 * person's memories become episodic memories of a conversation of their own (`mem0:<user>`, which
 * they own), so they are read and searched as the person's memories in every family that serves
 * memories. Each memory stands on an episode of its own without messages (mem0 keeps none); the
 * episode's number comes from the memory's id, so converting the same file again gives the same
 * records and importing it twice stores it once. `user` names the person of memories without one.
 */
export function mem0ToExport(input: unknown, user: string | undefined, now = new Date()): ExportRecord[] {
  const list = Array.isArray(input) ? input : (input as { results?: unknown } | null)?.results;
  if (!Array.isArray(list)) throw new Error('not mem0 get_all output: expected a list, or {"results": [...]}');
  const byUser = new Map<string, Mem0Memory[]>();
  list.forEach((m: unknown, i) => {
    const memory = m as Partial<Mem0Memory> | null;
    if (typeof memory?.id !== 'string' || typeof memory.memory !== 'string')
      throw new Error(`memory ${i}: expected an id and a memory (text)`);
    const owner = memory.user_id ?? user;
    if (!owner) throw new Error(`memory ${i} has no user_id: give --user`);
    byUser.set(owner, [...(byUser.get(owner) ?? []), memory as Mem0Memory]);
  });
  const at = (t: string | null | undefined) => new Date(t ?? now).toISOString();
  const records: ExportRecord[] = [];
  const counts: Record<string, number> = {};
  const push = (r: ExportRecord) => {
    records.push(r);
    counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  };
  const memories: ExportRecord[] = [];
  for (const [owner, items] of byUser) {
    const conversationId = `mem0:${owner}`;
    const first = at(items.map((m) => m.created_at ?? null).sort()[0]);
    push({
      kind: 'conversation',
      id: conversationId,
      sourceApi: 'evermemos',
      groupId: null,
      nextSeq: 0,
      title: `Memories imported from mem0 for ${owner}`,
      metadata: { importedFrom: 'mem0' },
      createdAt: first,
      updatedAt: at(null),
      deletedAt: null,
    });
    push({ kind: 'membership', groupId: conversationId, userId: owner, accessLevel: 'owner', createdAt: first });
    items.forEach((m, i) => {
      const episodeId = episodeNumber(m.id);
      push({
        kind: 'episode',
        id: episodeId,
        conversationId,
        startSeq: i,
        endSeq: i,
        messageIds: [],
        startTime: at(m.created_at),
        endTime: at(m.updated_at ?? m.created_at),
        closeReason: 'flush',
        status: 'extracted',
        version: 1,
        createdAt: at(m.created_at),
        updatedAt: at(m.updated_at ?? m.created_at),
      });
      memories.push({
        kind: 'episodic_memory',
        id: m.id,
        episodeId,
        conversationId,
        version: 1,
        userId: owner,
        title: '',
        content: m.memory,
        occurredAt: at(m.created_at),
        endedAt: at(m.updated_at ?? m.created_at),
        messageIds: [],
        participants: [owner],
        extractor: 'mem0',
        supersededAt: null,
        createdAt: at(m.created_at),
      });
    });
  }
  for (const m of memories) push(m);
  const header: ExportRecord = {
    kind: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    server: 'mem0 get_all, converted by memstream',
    exportedAt: now.toISOString(),
    scope: byUser.size === 1 ? { kind: 'person', userId: [...byUser.keys()][0]! } : { kind: 'server' },
  };
  return [header, ...records, { kind: 'end', counts }];
}

/**
 * An episode number from a memory's id, high in the bigint range (2^52 and up, below 2^53 so a
 * JSON number holds it exactly), where the server's own numbering does not reach.
 */
function episodeNumber(memoryId: string): number {
  const hash = createHash('sha256').update(`mem0\u0000${memoryId}`).digest();
  return 2 ** 52 + (hash.readUIntBE(0, 6) % 2 ** 51);
}
