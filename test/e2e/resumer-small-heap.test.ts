import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { embeddedDataDir } from '../helpers/embedded-data-dir.js';

// Issue 49, item 7: 63 calls of 9.5 MB to the response resumer took an embedded server with a
// 768 MB heap from 120 to 757 MB, and the 64th killed it (JavaScript heap out of memory). Here the
// heap is small, so the same attack without bounds ends the process within a few calls; with them
// every call past a bound is refused and the process, and its /health, carry on.
const HEAP_MB = 192;
const TOKEN = 'x'.repeat(100_000); // the most one token may hold

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024);
}

test('the response resumer keeps a small heap alive under the 9.5 MB-a-call attack: every call past a bound is 413 or 429', async (t) => {
  const server = await embeddedDataDir(t, { prefix: 'memstream-resumer-heap-' });
  const proc = await server.start({}, [`--max-old-space-size=${HEAP_MB}`]);
  const post = async (path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    try {
      const res = await fetch(`${proc.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    } catch {
      return { status: 0, body: {} }; // the process is gone
    }
  };
  const conversation = async () => {
    const created = await post('/v1/conversations', { title: 'attack' });
    assert.equal(created.status, 201, `the server answers (exit: ${proc.child.exitCode}) ${proc.tail().slice(-2000)}`);
    return created.body['id'] as string;
  };
  const before = await rssMb(proc.pid);
  const since = performance.now();

  // The probe of the issue: 9.5 MB of tokens a call, never done.
  const big = Array.from({ length: 95 }, () => TOKEN);
  const attack: number[] = [];
  const id = await conversation();
  for (let i = 0; i < 40; i++) attack.push((await post(`/v1/conversations/${id}/response`, { tokens: big })).status);
  // Just under a response's bound (1 MiB), each in a conversation of its own: eight in progress at most.
  const inProgress: number[] = [];
  const open: string[] = [];
  for (let i = 0; i < 10; i++) {
    open.push(await conversation());
    inProgress.push((await post(`/v1/conversations/${open.at(-1)}/response`, { tokens: big.slice(0, 10) })).status);
  }
  for (const id of open.slice(0, 8))
    assert.equal((await post(`/v1/conversations/${id}/cancel-response`, {})).status, 200);
  // Ended responses stay replayable for a while: together they stay within the process's budget.
  const ended: Array<{ status: number; code: unknown }> = [];
  for (let i = 0; i < 40; i++) {
    const r = await post(`/v1/conversations/${await conversation()}/response`, {
      tokens: big.slice(0, 10),
      done: true,
    });
    ended.push({ status: r.status, code: r.body['code'] });
  }
  const after = await rssMb(proc.pid);
  t.diagnostic(
    `RSS ${before} MB before, ${after} MB after (heap limit ${HEAP_MB} MB); ${Math.round(performance.now() - since)} ms of calls`,
  );
  t.diagnostic(`answers: ${JSON.stringify({ attack, inProgress, ended: ended.map((e) => e.status) })}`);

  assert.deepEqual(new Set(attack), new Set([413]), 'every 9.5 MB call is refused: a response holds at most 1 MiB');
  assert.deepEqual(inProgress, [200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
  const refusedAt = ended.findIndex((e) => e.status !== 200);
  assert.ok(refusedAt > 0, 'some ended responses are kept');
  assert.deepEqual(ended[refusedAt], { status: 429, code: 'too_many_requests' });
  assert.ok(
    ended.slice(refusedAt).every((e) => e.status === 429),
    'past the budget, every one is refused',
  );
  assert.equal(proc.child.exitCode, null, 'the process is alive');
  assert.equal((await fetch(`${proc.base}/health`)).status, 200);
});
