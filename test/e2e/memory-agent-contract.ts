import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';
import { call } from '../helpers/evermemos-client.js';
import { credentialsFor } from '../../harness/credentials.js';

interface Row {
  memory_id: number;
  memory_text: string;
  start_sequence: number;
  end_sequence: number;
  base_memory_id: number | null;
  status: string;
  created_at: string;
  generation_time_ms: number | null;
}
interface Context {
  conversation_id: string;
  memory: { memory_id: number; memory_text: string; start_sequence: number; end_sequence: number } | null;
  gap_messages: Array<{ sequence: number; content: string; sender_name: string }>;
}

const token = (i: number) => `tok${String(i).padStart(3, '0')}z`;

async function post(write: string, group: string, from: number, to: number): Promise<void> {
  for (let i = from; i <= to; i++) {
    const res = await call(write, 'POST', '/api/v1/memories', {
      group_id: group,
      message_id: `m${i}`,
      create_time: new Date(Date.UTC(2025, 0, 1, 9, i)).toISOString(),
      sender: i % 2 ? 'bot' : 'ann',
      sender_name: i % 2 ? 'Bot' : 'Ann',
      content: `Round ${i >> 1}: point ${token(i)}.`,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
}

async function summaries(read: string, group: string): Promise<Row[]> {
  const res = await call<{ summaries: Row[] }>(read, 'GET', `/api/v1/summaries?conversation_id=${group}`);
  assert.equal(res.status, 200);
  return res.body.summaries;
}

async function summarizedUpTo(read: string, group: string, end: number): Promise<Row> {
  return waitFor(
    `a completed summary ending at ${end}`,
    async () => (await summaries(read, group)).find((r) => r.status === 'completed' && r.end_sequence === end),
    60_000,
  );
}

/**
 * The Memory Agent's behaviour through the HTTP APIs: a group chat written over the EverMemOS
 * API is summarized with spec 004's windows and version chain, and the context endpoint returns
 * the latest completed memory and the gap after it.
 */
export async function checkMemoryAgent(write: string, read: string, group: string): Promise<void> {
  // No memory yet: the context is every message.
  await post(write, group, 0, 2);
  const early = await call<Context>(read, 'GET', `/api/v1/context?conversation_id=${group}`);
  assert.equal(early.status, 200);
  assert.equal(early.body.memory, null);
  assert.deepEqual(
    early.body.gap_messages.map((m) => m.sequence),
    [0, 1, 2],
  );

  // Spec 004's table: last sequence 5, 13, 15, 19 -> windows (0,5), (0,13), (2,15), (6,19).
  await post(write, group, 3, 5);
  assert.deepEqual(pick(await summarizedUpTo(read, group, 5)), [0, 5]);
  await post(write, group, 6, 13);
  assert.deepEqual(pick(await summarizedUpTo(read, group, 13)), [0, 13]);
  await post(write, group, 14, 15);
  assert.deepEqual(pick(await summarizedUpTo(read, group, 15)), [2, 15]);
  await post(write, group, 16, 19);
  const last = await summarizedUpTo(read, group, 19);
  assert.deepEqual(pick(last), [6, 19]);

  // Version chain: each completed memory is based on the completed one before it.
  const rows = await summaries(read, group);
  assert.deepEqual(
    rows.map((r) => r.memory_id),
    [...rows.map((r) => r.memory_id)].sort((a, b) => a - b),
    'oldest first',
  );
  const completed = rows.filter((r) => r.status === 'completed');
  assert.equal(completed[0]!.base_memory_id, null);
  const chain = JSON.stringify(
    rows.map((r) => [r.memory_id, r.status, r.start_sequence, r.end_sequence, r.base_memory_id]),
  );
  for (let i = 1; i < completed.length; i++)
    assert.equal(completed[i]!.base_memory_id, completed[i - 1]!.memory_id, `chain at ${i}: ${chain}`);
  assert.ok(
    completed.every((r) => r.start_sequence % 2 === 0),
    'even starts',
  );
  assert.ok(
    completed.every((r) => typeof r.generation_time_ms === 'number' && !Number.isNaN(Date.parse(r.created_at))),
  );
  // The offline summary of (6,19) holds nothing from messages 0-5.
  for (let i = 0; i < 20; i++) assert.equal(last.memory_text.includes(token(i)), i >= 6, `message ${i}`);

  // Context: the latest completed memory and exactly the messages after it.
  await post(write, group, 20, 21);
  const ctx = await call<Context>(read, 'GET', `/api/v1/context?conversation_id=${group}`);
  const memory = ctx.body.memory!;
  assert.ok(memory.end_sequence >= 19);
  assert.deepEqual(
    ctx.body.gap_messages.map((m) => m.sequence),
    Array.from({ length: 21 - memory.end_sequence }, (_, i) => memory.end_sequence + 1 + i),
  );
  const text = await fetch(`${read}/api/v1/context?conversation_id=${group}&format=text`, {
    headers: credentialsFor(read),
  }).then((r) => r.text());
  assert.ok(text.includes(memory.memory_text.slice(0, 40)) || text.includes('[Previous context'), text);

  const unknown = await call<{ error: { code: string } }>(read, 'GET', '/api/v1/context?conversation_id=nobody-here');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'RESOURCE_NOT_FOUND');
}

function pick(r: Row): [number, number] {
  return [r.start_sequence, r.end_sequence];
}
