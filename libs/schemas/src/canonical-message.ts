import { z } from 'zod';

/**
 * The one message model every API family maps into. The converter is the only place that builds
 * it; everything downstream (memories, embeddings, summaries, read APIs) reads only this.
 */
/**
 * The one list of the API families that write conversations, in the order everything listing
 * them follows (the API's registration and document, erasure counts, the client's families).
 */
export const SourceApi = z.enum(['evermemos', 'memory-agent', 'ark', 'memory-service', 'kaos']);
export type SourceApi = z.infer<typeof SourceApi>;

export const Role = z.enum(['user', 'assistant', 'system', 'tool']);
export type Role = z.infer<typeof Role>;

export const CanonicalMessage = z.object({
  conversation_id: z.string().min(1),
  /** Position in the conversation, assigned in arrival order from 0 without gaps. */
  seq: z.number().int().min(0),
  message_id: z.string().min(1),
  sender_id: z.string().min(1),
  sender_name: z.string(),
  role: Role,
  content: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  stored_at: z.iso.datetime({ offset: true }),
  refer_list: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  source_api: SourceApi,
});
export type CanonicalMessage = z.infer<typeof CanonicalMessage>;

/**
 * Who may read a message beyond the conversation's members' usual rights, from what its family
 * stored: null for everyone, 'agents' for memory-service's `visibility: agent`, 'agent:<client>'
 * for an agent's memory channel. The store computes the same value as `messages.audience`
 * (migration 0012) for its queries; this one labels live events, which never touch the store.
 * A test holds the two to one rule.
 */
export function audienceOfMessage(metadata: Record<string, unknown>): string | null {
  const ms = metadata['ms'];
  if (ms === null || typeof ms !== 'object') return null;
  const {
    channel,
    visibility,
    client_id: clientId,
  } = ms as { channel?: unknown; visibility?: unknown; client_id?: unknown };
  if (channel === 'memory') return `agent:${typeof clientId === 'string' ? clientId : ''}`;
  return visibility === 'agent' ? 'agents' : null;
}
