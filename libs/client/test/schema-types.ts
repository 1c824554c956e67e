/**
 * Type-level checks, run by `npm run typecheck`: the client's arguments are the server's zod
 * schemas, so what a schema refuses the compiler refuses. Each line below must fail to compile;
 * if a schema stopped reaching the client's types, its @ts-expect-error would become unused and
 * the type check would fail. Nothing here runs.
 */
import type { MemstreamClient } from '@memstream/client';

export function refusedByTheSchemas(c: MemstreamClient): void {
  // @ts-expect-error retrieve_method is one of keyword, vector, hybrid, rrf (SearchMemoriesRequest)
  void c.evermemos.search({ query: 'q', retrieve_method: 'fuzzy' });
  // @ts-expect-error message_id is required (GroupChatMessage)
  void c.evermemos.write({ create_time: '2025-01-01T00:00:00Z', sender: 's', content: 'c' });
  // @ts-expect-error an access level is reader, writer, manager or owner (AccessLevel)
  void c.memoryService.user.share('id', 'bob', 'admin');
  // @ts-expect-error event_type is a string (KaosEventType: free, as in KAOS)
  void c.kaos.addEvents('s', { event_type: 7, content: 1 });
  // @ts-expect-error content blocks are an array in the code layout (CreateMessageRequest)
  void c.memoryService.conversations.appendMessage('id', { content: 'text' });
}
