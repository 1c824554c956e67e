import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isAccepted, type MemstreamClient } from '@memstream/client';
import { userToken } from '../../harness/credentials.js';
import { waitFor } from '../helpers/infra.js';
import { call } from './mcp/tools-contract.js';

/**
 * Where one deployment is written and searched. `writer` and `reader` may be different replicas
 * of the read API (and the writer's EverMemOS writes go through the gateway); `mcp` is an MCP
 * server in front of the reader.
 */
export interface ReadYourWritesTargets {
  /** An agent's client on the replica (and gateway) that takes the writes. */
  readonly writer: MemstreamClient;
  /** The same agent on the replica that answers the searches. */
  readonly reader: MemstreamClient;
  readonly mcp: Client;
}

/** Writes per family, in WRITERS lanes at once: each search starts while other writes are being stored. */
const ROUNDS = 12;
const WRITERS = 4;

/** A word no other message holds, so the one message that has it must be among the first hits. */
const wordOf = (label: string) => `ryw${label}${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/**
 * Every family that searches, each written and searched at once, many times: a message whose
 * write was acknowledged (200, or 202 followed by the status call saying `stored`) is found by
 * the first keyword and the first hybrid search that starts after the acknowledgement, on the
 * other replica. Nothing waits for the indexer: the vector may come later.
 */
export async function checkReadYourWrites(targets: ReadYourWritesTargets, label: string): Promise<void> {
  const { writer, reader, mcp } = targets;
  const token = () => userToken('alice');
  const alice = { writer: writer.as({ token }), reader: reader.as({ token }) };
  const misses: string[] = [];
  const expectFound = (what: string, found: boolean) => void (found || misses.push(what));

  const code = await alice.writer.memoryService.conversations.create({ title: `ryw ${label} code` });
  const doc = await alice.writer.memoryService.user.create({ title: `ryw ${label} document` });

  const evermemosSearch = async (word: string, group: string, id: string, what: string) => {
    const search = (method: 'keyword' | 'hybrid') =>
      reader.evermemos.search({ query: `what about ${word}?`, group_id: group, retrieve_method: method, top_k: 10 });
    const [keyword, hybrid] = await Promise.all([search('keyword'), search('hybrid')]);
    expectFound(
      `${what}, keyword`,
      keyword.result.memories.some((h) => h.id === id),
    );
    expectFound(
      `${what}, hybrid`,
      hybrid.result.memories.some((h) => h.id === id),
    );
  };
  const memoryServiceSearch = async (word: string, id: string, what: string) => {
    const found = await alice.reader.memoryService.user.search({ query: `anything on ${word}`, topK: 10 });
    expectFound(
      what,
      found.data.some((h) => h.message.id === id),
    );
  };

  const families: Record<string, (lane: number, round: number) => Promise<void>> = {
    'EverMemOS, held write': async (lane, round) => {
      const word = wordOf(label);
      const group = `ryw_${label}_held_${lane}`;
      const id = `held_${lane}_${round}`;
      const written = await writer.evermemos.write({
        group_id: group,
        message_id: id,
        create_time: new Date().toISOString(),
        sender: `u${round % 3}`,
        content: `Round ${round}: the word of the day is ${word}.`,
      });
      assert.ok(!isAccepted(written), 'held until stored (the sync wait is long here)');
      await evermemosSearch(word, group, id, `EverMemOS ${id}`);
    },
    'EverMemOS, accepted write once its status says stored': async (lane, round) => {
      const word = wordOf(label);
      const group = `ryw_${label}_accepted_${lane}`;
      const id = `accepted_${lane}_${round}`;
      const accepted = await writer.evermemos.write(
        {
          group_id: group,
          message_id: id,
          create_time: new Date().toISOString(),
          sender: 'u1',
          content: `Later: ${word} again.`,
        },
        { sync: false },
      );
      assert.ok(isAccepted(accepted));
      await waitFor(`${id} stored`, async () => {
        const s = await reader.evermemos.requestStatus(accepted.request_id);
        return s.result.status === 'accepted' ? undefined : s.result.status;
      });
      await evermemosSearch(word, group, id, `EverMemOS ${id} (202)`);
    },
    'memory-service, code layout': async (_lane, round) => {
      const word = wordOf(label);
      const m = await alice.writer.memoryService.conversations.appendMessage(code.id, {
        content: [{ type: 'text', text: `Note ${round} mentions ${word}` }],
      });
      await memoryServiceSearch(word, m.id, `memory-service code layout, round ${round}`);
    },
    'memory-service, document layout': async (_lane, round) => {
      const word = wordOf(label);
      const m = await alice.writer.memoryService.user.appendMessage(doc.id, { content: `Did you see ${word}?` });
      await memoryServiceSearch(word, m.id, `memory-service document layout, round ${round}`);
    },
    'memory-service, agent bulk write': async (_lane, round) => {
      const word = wordOf(label);
      const page = await writer.memoryService.agent.appendMessages(doc.id, {
        messages: [{ role: 'assistant', content: `Yes, ${word} was there.` }],
      });
      await memoryServiceSearch(word, page.data[0]!.id, `memory-service agent bulk write, round ${round}`);
    },
    'MCP add_memory then search_memory': async (lane, round) => {
      const word = wordOf(label);
      const conversation = `ryw_${label}_mcp_${lane}`;
      const id = `mcp_${lane}_${round}`;
      const added = await call(mcp, 'add_memory', {
        conversation_id: conversation,
        content: `Remember ${word} for later.`,
        sender: 'u1',
        message_id: id,
      });
      assert.equal(added.isError, false, added.text);
      const found = await call(mcp, 'search_memory', { query: `what is ${word}`, conversation_id: conversation });
      assert.equal(found.isError, false, found.text);
      expectFound(
        `MCP ${id}`,
        (found.data['hits'] as Array<{ id: string }>).some((h) => h.id === id),
      );
    },
  };

  // Every family in every lane at once: the searches run while the other lanes' writes are stored.
  await Promise.all(
    Object.values(families).flatMap((run) =>
      Array.from({ length: WRITERS }, async (_, lane) => {
        for (let round = lane; round < ROUNDS; round += WRITERS) await run(lane, round);
      }),
    ),
  );
  assert.deepEqual(misses, [], `${label}: acknowledged writes the first search after the acknowledgement did not find`);
}
