import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendStreamChunks, streamChunksBefore } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

test("each relayed chunk is told the number of its session's chunk kept just before it, in the order asked", async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  const a = await appendStreamChunks(store, 'ark-a', [{ n: 1 }, { n: 2 }, { n: 3 }]);
  const b = await appendStreamChunks(store, 'ark-b', [{ n: 1 }]);
  // a gap in session a: the middle chunk is gone, so the last one's predecessor is the first
  await store.query('DELETE FROM stream_chunks WHERE session_id = $1 AND chunk_seq = $2', ['ark-a', a[1]]);
  const asked = [
    { sessionId: 'ark-a', seq: a[2]! },
    { sessionId: 'ark-b', seq: b[0]! },
    { sessionId: 'ark-a', seq: a[0]! },
    { sessionId: 'ark-none', seq: 5 },
    { sessionId: 'ark-b', seq: b[0]! + 1 },
  ];
  assert.deepEqual(await streamChunksBefore(store, asked), [a[0], undefined, undefined, undefined, b[0]]);
  assert.deepEqual(await streamChunksBefore(store, []), []);
});
