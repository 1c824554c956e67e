import type { TestContext } from 'node:test';
import type { CanonicalMessage } from '@memstream/schemas';
import { appendMessages, type Store } from '@memstream/store';
import { migratedStore } from '../../../test/helpers/migrated-store.js';

/** A fresh migrated store holding one conversation ('g') of Alice's messages m0, m1, ..., a minute apart. */
export async function storedMessages(
  t: TestContext,
  said: readonly string[],
): Promise<{ store: Store; messages: CanonicalMessage[] }> {
  const store = await migratedStore(t);
  const results = await appendMessages(
    store,
    said.map((content, i) => ({
      message: {
        conversation_id: 'g',
        message_id: `m${i}`,
        sender_id: 'u1',
        sender_name: 'Alice',
        role: 'user' as const,
        content,
        created_at: new Date(Date.UTC(2025, 0, 15, 10, i)),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos' as const,
      },
    })),
  );
  return { store, messages: results.map((r) => r.message) };
}
