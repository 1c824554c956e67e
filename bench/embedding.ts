/**
 * `npm run bench:embedding`: how fast each local model embeds on this machine, per thread count.
 * For each: LoCoMo-like turns (20–40 words) in calls of 32, single short queries one at a time,
 * then the same queries while a bulk import runs (they take turns with it batch by batch), and
 * the main thread's event-loop delay during the bulk run (inference runs on a worker, so it should
 * stay near what an idle process sees on the same machine; other load on the cores raises the max). CPU ms per text (documents, warm-up and queries together) is the figure that
 * survives other load on the machine. Needs only `npm ci` (no Kafka, no database). Prints a
 * table, then one JSON line.
 */
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_EMBEDDING_MODELS, type LocalEmbeddingModel } from '@memstream/config';
import {
  createLocalEmbedder,
  LOCAL_MODELS,
  resolveModelDir,
  type Embedder,
  type LocalWeights,
} from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { locomoTurns, measureThroughput, shortQueries } from '../harness/embedding-throughput.js';
import { section, table } from './lib/table.js';
import { round, summarizeLatencies } from './lib/stats.js';

const { values: flags } = parseArgs({
  options: {
    docs: { type: 'string', default: '512' },
    batch: { type: 'string', default: '32' },
    queries: { type: 'string', default: '100' },
    threads: { type: 'string', default: '1,2' },
    /** The models to compare (EMBEDDING_LOCAL_MODEL; every one unset). */
    models: { type: 'string', default: LOCAL_EMBEDDING_MODELS.join(',') },
    /** The graphs to compare (EMBEDDING_LOCAL_WEIGHTS), where a model has them. */
    weights: { type: 'string', default: 'int8,float32' },
    /** Texts per batch handed to the inference thread (EMBEDDING_BATCH_SIZE); unset, the server's default: 4 int8, 16 float32. */
    'model-batch': { type: 'string' },
  },
});
const DOCS = Number(flags.docs);
const BATCH = Number(flags.batch);
const QUERIES = Number(flags.queries);
const log = createLogger({ service: 'bench-embedding', level: 'warn' });

/** Query latency while one caller embeds `documents` in calls of `batch`, and the event loop's delay meanwhile. */
async function underLoad(
  embedder: Embedder,
  documents: readonly string[],
): Promise<{ p50: number; p95: number; loopP99Ms: number; loopMaxMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let bulkDone = false;
  const bulk = (async () => {
    for (let i = 0; i < documents.length; i += BATCH) await embedder.embed(documents.slice(i, i + BATCH), 'document');
    bulkDone = true;
  })();
  const samples: number[] = [];
  for (const query of shortQueries(QUERIES)) {
    if (bulkDone) break;
    const started = performance.now();
    await embedder.embed([query], 'query');
    samples.push(performance.now() - started);
  }
  await bulk;
  loop.disable();
  const summary = summarizeLatencies(Float64Array.from(samples));
  return {
    p50: summary.p50,
    p95: summary.p95,
    loopP99Ms: round(loop.percentile(99) / 1e6, 1),
    loopMaxMs: round(loop.max / 1e6, 1),
  };
}

const rssMiB = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const rows: Array<Record<string, number | string>> = [];
/** The installed folder's size, MiB. */
const installMiB = (dir: string) =>
  round(readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0) / 2 ** 20, 1);
const runs = (flags.models.split(',') as LocalEmbeddingModel[]).flatMap((key) =>
  (flags.weights.split(',') as LocalWeights[])
    .filter((weights) => LOCAL_MODELS[key].graphs[weights] !== undefined)
    .flatMap((weights) => flags.threads.split(',').map((threads) => ({ key, weights, threads: Number(threads) }))),
);
for (const { key, weights, threads } of runs) {
  const model = LOCAL_MODELS[key];
  const modelDir = resolveModelDir(undefined, model);
  // Each model in a process of its own would be cleaner; in one process, what a model left behind
  // shows in the next one's figure, so the RSS growth is read against the RSS before its load.
  const rssBefore = rssMiB();
  const embedder = await createLocalEmbedder(
    {
      model,
      modelDir,
      threads,
      batchSize: flags['model-batch'] ? Number(flags['model-batch']) : weights === 'int8' ? 4 : 16,
      weights,
    },
    log,
  );
  const documents = locomoTurns(DOCS);
  // CPU time of the whole process (worker thread included) holds up when other load shares the
  // cores, where wall-clock rates do not.
  const cpuBefore = process.cpuUsage();
  const alone = await measureThroughput(embedder, { documents, batchSize: BATCH, queries: QUERIES });
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerDoc = round((cpu.user + cpu.system) / 1000 / (DOCS + BATCH + QUERIES), 2);
  const loaded = await underLoad(embedder, documents);
  rows.push({
    model: model.name,
    weights,
    threads,
    install_mib: installMiB(modelDir),
    rss_growth_mib: rssMiB() - rssBefore,
    docs_per_s: alone.documentsPerSecond,
    cpu_ms_per_text: cpuMsPerDoc,
    query_p50_ms: alone.queryP50Ms,
    query_p95_ms: alone.queryP95Ms,
    loaded_query_p50_ms: loaded.p50,
    loaded_query_p95_ms: loaded.p95,
    loop_p99_delay_ms: loaded.loopP99Ms,
    loop_max_delay_ms: loaded.loopMaxMs,
  });
  await embedder.close();
}

console.log(
  section(
    `local models: ${DOCS} turns in calls of ${BATCH}, ${QUERIES} queries; ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ),
);
console.log(
  table(
    [
      'model',
      'weights',
      'threads',
      'install MiB',
      'RSS growth MiB',
      'docs/s',
      'CPU ms/text',
      'query p50 ms',
      'query p95 ms',
      'during bulk p50',
      'during bulk p95',
      'loop delay p99 ms',
      'loop delay max ms',
    ],
    rows.map((r) => [
      String(r.model),
      String(r.weights),
      String(r.threads),
      r.install_mib!,
      r.rss_growth_mib!,
      r.docs_per_s!,
      r.cpu_ms_per_text!,
      r.query_p50_ms!,
      r.query_p95_ms!,
      r.loaded_query_p50_ms!,
      r.loaded_query_p95_ms!,
      r.loop_p99_delay_ms!,
      r.loop_max_delay_ms!,
    ]),
  ),
);
console.log(
  JSON.stringify({
    bench: 'embedding',
    docs: DOCS,
    batch: BATCH,
    queries: QUERIES,
    cores: os.cpus().length,
    load: os.loadavg(),
    rows,
  }),
);
