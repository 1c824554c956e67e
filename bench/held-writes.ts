/**
 * `npm run bench:held-writes -- --target before=http://... --target after=http://... [--concurrency 16]`:
 * the held EverMemOS write (`POST /api/v1/memories`, answered once stored) on servers already
 * running, measured in alternated rounds so both see the same machine load. On a shared machine a
 * single run means little; the ratio of two servers measured a few seconds apart does, so each
 * round prints both rates, their ratio and the load average it ran under.
 *
 * Each round writes `--writes` messages into `--concurrency` fresh groups, one writer per group
 * sending its next message as soon as the last is answered (so `--concurrency` requests are in
 * flight), a minute apart in message time, so the server's episode rules close an episode now and
 * then (every EPISODE_MAX_MESSAGES-th write of a group, `--episode-messages`, 50 by default);
 * those writes are reported apart, as they are the ones that may wait for the extractor. With
 * `--phases spread` (the default) each group also starts with a silence at its own place, so the
 * groups end episodes at different times; `--phases together` keeps them in lockstep. `--pid label=PID` samples that server's process
 * tree and reports its peak PSS.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { positiveInt } from './lib/flags.js';
import { mib, TreeMemoryPeak } from './lib/process-memory.js';
import { round, summarizeLatencies } from './lib/stats.js';
import { section, table } from './lib/table.js';

const HELP = `usage: npm run bench:held-writes -- --target LABEL=URL [--target LABEL=URL ...] [options]
  --target LABEL=URL     a running server to write to (repeat to compare; rounds alternate)
  --pid LABEL=PID        sample that server's process tree for its peak PSS
  --rounds R             alternated rounds (default 6)
  --writes W             writes per server and round (default 100)
  --concurrency C        writes in flight, one group each (default 1)
  --warmup W             writes per server before measuring, not counted (default 0)
  --phases spread|together  where each group's episodes end (default spread)
  --episode-messages N   the servers' EPISODE_MAX_MESSAGES (default 50)`;

const { values } = parseArgs({
  options: {
    help: { type: 'boolean', default: false },
    target: { type: 'string', multiple: true },
    pid: { type: 'string', multiple: true, default: [] },
    rounds: { type: 'string', default: '6' },
    writes: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '0' },
    phases: { type: 'string', default: 'spread' },
    'episode-messages': { type: 'string', default: '50' },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const labelled = (flag: string) => {
  const at = flag.indexOf('=');
  return { label: flag.slice(0, at), value: flag.slice(at + 1) };
};
const targets = (values.target ?? []).map(labelled).map(({ label, value }) => ({ label, base: value }));
if (targets.length === 0) throw new Error('name at least one --target label=url');
const pids = new Map(values.pid.map(labelled).map(({ label, value }) => [label, Number(value)]));
const rounds = positiveInt('rounds', values.rounds);
const writes = positiveInt('writes', values.writes);
const concurrency = positiveInt('concurrency', values.concurrency);
const warmup = positiveInt('warmup', values.warmup, 0);
if (values.phases !== 'spread' && values.phases !== 'together') throw new Error('--phases is spread or together');
const spread = values.phases === 'spread';
const episodeMessages = positiveInt('episode-messages', values['episode-messages']);
/** Past the server's EPISODE_SILENCE_MS (4 hours by default): a gap this long closes an episode. */
const SILENCE_MS = 5 * 3_600_000;

interface Pass {
  readonly ms: number[];
  readonly closingMs: number[];
  readonly elapsedMs: number;
}

const t0 = Date.parse('2026-03-01T08:00:00Z');
const pools = new Map(
  targets.map((t) => [
    t.label,
    new Pool(t.base, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 }),
  ]),
);

/** `total` held writes to one server, `concurrency` groups written at once, each in order. */
async function pass(label: string, total: number): Promise<Pass> {
  const pool = pools.get(label)!;
  const ms: number[] = [];
  const closingMs: number[] = [];
  const writer = async (w: number) => {
    const group = `bench-${randomUUID()}`;
    // Where this group's first episode ends. Fresh groups written at one pace would all reach the
    // message cap on the same round trip and wait for their memories together, a lockstep real
    // groups are not in; with `--phases spread` each group starts with a silence at its own place.
    const gapAt = spread ? 1 + Math.floor((w * (episodeMessages - 1)) / concurrency) : Number.POSITIVE_INFINITY;
    for (let i = 0; w + i * concurrency < total; i++) {
      const started = performance.now();
      const res = await pool.request({
        path: '/api/v1/memories',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          group_id: group,
          message_id: `m${i}`,
          create_time: new Date(t0 + i * 60_000 + (i >= gapAt ? SILENCE_MS : 0)).toISOString(),
          sender: i % 2 === 0 ? 'ana' : 'ben',
          content: `Note ${i} about the quarterly plan: the review of item ${i % 7} moves to next week.`,
        }),
      });
      const body = (await res.body.json()) as { result?: { status_info?: string } };
      const took = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode} ${JSON.stringify(body)}`);
      ms.push(took);
      if (body.result?.status_info !== 'accumulated') closingMs.push(took);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, (_, w) => writer(w)));
  return { ms, closingMs, elapsedMs: performance.now() - started };
}

for (const { label } of targets) if (warmup > 0) await pass(label, warmup);

const peaks = new Map([...pids].map(([label, pid]) => [label, new TreeMemoryPeak(pid, 500)]));
const all = new Map(targets.map((t) => [t.label, [] as number[]]));
const closing = new Map(targets.map((t) => [t.label, [] as number[]]));
const perRound: (string | number)[][] = [];
const rates = new Map(targets.map((t) => [t.label, [] as number[]]));
for (let round_ = 0; round_ < rounds; round_++) {
  const load = os.loadavg()[0]!;
  const rate = new Map<string, number>();
  for (const { label } of round_ % 2 === 0 ? targets : [...targets].reverse()) {
    const p = await pass(label, writes);
    all.get(label)!.push(...p.ms);
    closing.get(label)!.push(...p.closingMs);
    rate.set(label, (p.ms.length * 1000) / p.elapsedMs);
    rates.get(label)!.push(rate.get(label)!);
  }
  const [first, second] = targets;
  const ratio = second ? round(rate.get(second.label)! / rate.get(first!.label)!, 3) : 1;
  perRound.push([round_ + 1, round(load, 1), ...targets.map(({ label }) => round(rate.get(label)!)), ratio]);
  console.error(`[held-writes] round ${round_ + 1}: ${perRound.at(-1)!.join(' ')}`);
}
const memory = new Map([...peaks].map(([label, peak]) => [label, peak.stop()]));
await Promise.all([...pools.values()].map((p) => p.close()));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const row = (label: string, kind: string, samples: number[]) => {
  const s = summarizeLatencies(Float64Array.from(samples));
  return [label, kind, s.count, s.p50, s.p99, s.max];
};
const ratioHeader = targets[1] ? `${targets[1].label}/${targets[0]!.label}` : 'ratio';
console.log(section(`held EverMemOS writes, ${rounds} alternated rounds of ${writes}, ${concurrency} in flight`));
console.log(table(['round', 'load 1m', ...targets.map((t) => `${t.label} writes/s`), ratioHeader], perRound));
const ratios = perRound.map((r) => r.at(-1) as number);
console.log(
  table(
    ['server', 'median writes/s', 'peak PSS MiB', 'processes'],
    targets.map(({ label }) => {
      const m = memory.get(label);
      return [label, round(median(rates.get(label)!)), m ? mib(m.pssKiB) : '-', m ? m.processes : '-'];
    }),
  ),
);
console.log(
  `median ratio ${ratioHeader}: ${round(median(ratios), 3)} (min ${Math.min(...ratios)}, max ${Math.max(...ratios)})`,
);
console.log(
  table(
    ['server', 'writes', 'n', 'p50 ms', 'p99 ms', 'max ms'],
    targets.flatMap(({ label }) => [
      row(label, 'all', all.get(label)!),
      row(label, 'ending an episode', closing.get(label)!),
    ]),
  ),
);
