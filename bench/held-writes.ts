/**
 * `npm run bench:held-writes -- --target before=http://... --target after=http://...`: the held
 * EverMemOS write (`POST /api/v1/memories`, answered once stored) on servers already running,
 * measured in alternated rounds so both see the same machine load. Each round writes `--writes`
 * messages one after another into a fresh group, a minute apart in message time, so the server's
 * episode rules close an episode now and then (every EPISODE_MAX_MESSAGES-th write); those writes
 * are reported apart, as they are the ones that may wait for the extractor.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { positiveInt } from './lib/flags.js';
import { summarizeLatencies } from './lib/stats.js';
import { section, table } from './lib/table.js';

const { values } = parseArgs({
  options: {
    target: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '6' },
    writes: { type: 'string', default: '100' },
  },
});
const targets = (values.target ?? []).map((t) => {
  const at = t.indexOf('=');
  return { label: t.slice(0, at), base: t.slice(at + 1) };
});
if (targets.length === 0) throw new Error('name at least one --target label=url');
const rounds = positiveInt('rounds', values.rounds);
const writes = positiveInt('writes', values.writes);

const all = new Map(targets.map((t) => [t.label, [] as number[]]));
const closing = new Map(targets.map((t) => [t.label, [] as number[]]));
const t0 = Date.parse('2026-03-01T08:00:00Z');
for (let round = 0; round < rounds; round++) {
  for (const { label, base } of round % 2 === 0 ? targets : [...targets].reverse()) {
    const group = `bench-${randomUUID()}`;
    for (let i = 0; i < writes; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          group_id: group,
          message_id: `m${i}`,
          create_time: new Date(t0 + i * 60_000).toISOString(),
          sender: i % 2 === 0 ? 'ana' : 'ben',
          content: `Note ${i} about the quarterly plan: the review of item ${i % 7} moves to next week.`,
        }),
      });
      const body = (await res.json()) as { result?: { status_info?: string } };
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`${label}: ${res.status} ${JSON.stringify(body)}`);
      all.get(label)!.push(ms);
      if (body.result?.status_info !== 'accumulated') closing.get(label)!.push(ms);
    }
  }
}

const row = (label: string, kind: string, samples: number[]) => {
  const s = summarizeLatencies(Float64Array.from(samples));
  return [label, kind, s.count, s.p50, s.p99, s.max];
};
console.log(section(`held EverMemOS writes, ${rounds} alternated rounds of ${writes}`));
console.log(
  table(
    ['server', 'writes', 'n', 'p50 ms', 'p99 ms', 'max ms'],
    targets.flatMap(({ label }) => [
      row(label, 'all', all.get(label)!),
      row(label, 'ending an episode', closing.get(label)!),
    ]),
  ),
);
