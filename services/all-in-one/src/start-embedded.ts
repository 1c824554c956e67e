import type { AllInOneConfig } from './config.js';
import { createBus } from '@memstream/bus';
import type { ProcessContext } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { findRequestOutcome, openStore, storeBusJournal } from '@memstream/store';
import { backgroundStoreOf, embeddedPostgresOf } from '@memstream/embedded-postgres';
import { startWriter, writeSettingsOf } from '@memstream/ingest';
import { openApiDeps, runApi } from '@memstream/api';
import { runConverter } from '@memstream/converter';
import { runGovernance } from '@memstream/governance';
import { runSummarizer } from '@memstream/summarizer';
import { runExtractor } from '@memstream/extractor';
import { runIndexer } from '@memstream/indexer';
import { createEmbedder } from '@memstream/embedding';

/**
 * The embedded mode: gateway, consumers and read API in one process on one port. With nothing
 * configured it uses the in-process bus, in-process fan-out and a PostgreSQL server of its own under DATA_DIR; set
 * KAFKA_BROKERS, DATABASE_URL or REDIS_URL and the same process uses those instead. Exported so
 * tests run exactly this composition in their own process. Every component registers its series
 * on the one `metrics` registry, served at `/metrics`. Resolves with the listening port.
 */
export async function startEmbedded(ctx: ProcessContext<AllInOneConfig>): Promise<number> {
  const { config, log, lifecycle, metrics } = ctx;
  const store = await lifecycle.own(
    'store',
    () => openStore(config, log, embeddedPostgresOf(config)),
    (s) => s.close(),
  );
  const api = await openApiDeps(ctx, store);
  const { fanout, ledger } = api;
  // One embedder for the indexer's documents and the read API's queries: one model in memory.
  const embedder = await lifecycle.own(
    'embedder',
    () => createEmbedder(config, log),
    (e) => e.close(),
  );
  // Without Kafka, the in-process bus journals every record in the store before a publish
  // resolves, so a 202 and the events between consumers survive a crash as they would on Kafka.
  const bus = await lifecycle.own(
    'bus',
    () => createBus(config, log, metrics, { journal: storeBusJournal(store) }),
    (b) => b.close(),
  );
  await bus.ensureTopics(allTopics());

  await runConverter(config, { bus, store, fanout, log, lifecycle });
  // Erasure, eviction and retention discard the response streams of what they removed.
  const discardStreams = async (ids: readonly string[]) => void (await api.responses?.discard(ids));
  const governance = await runGovernance(config, { bus, store, log, lifecycle, metrics, discardStreams });
  // Memory formation yields the CPU to the write path and the reads (see backgroundStoreOf).
  const background = backgroundStoreOf(store);
  await runSummarizer(config, { bus, store: background, log, lifecycle, metrics });
  await runExtractor(config, { bus, store: background, fanout, log, lifecycle, metrics });
  await runIndexer(config, { bus, store: background, embedder, log, lifecycle, metrics });

  const writer = await lifecycle.own(
    'write path',
    () =>
      startWriter({
        bus,
        fanout,
        ledger,
        lookup: (requestId) => findRequestOutcome(store, requestId),
        settings: writeSettingsOf(config),
        log,
      }),
    (w) => w.stop(),
  );
  // Every family's writes and reads on one server: the same entry point as the API processes.
  const port = await runApi(ctx, 'all', {
    ...api,
    write: writer.write,
    embedder,
    transport: bus,
    wakeEviction: () => governance.wake('eviction'),
  });
  log.info({ port, bus: bus.kind, store: store.kind }, 'memstream listening');
  return port;
}
