import type { Logger } from '@memstream/logging';
import { openStore, poolSizeOf, type StoreSettings } from './create-store.js';
import { PgStore } from './pg-store.js';
import { ReplicaReads, type ReadOutcome } from './replica-reads.js';
import type { Store } from './store.js';

export interface ReplicaSettings {
  /** Streaming replicas of DATABASE_URL's server; empty: every read goes to DATABASE_URL. */
  readonly DATABASE_REPLICA_URLS: readonly string[];
  readonly DATABASE_REPLICA_WAIT_MS: number;
  readonly DATABASE_REPLICA_RETRY_MS: number;
}

/** A replica's connection attempt: past it the read goes to the primary, so it is kept short. */
const REPLICA_CONNECT_TIMEOUT_MS = 2_000;

/**
 * The store of a process that only reads (the read API): openStore's, with the replicas of
 * DATABASE_REPLICA_URLS behind it when there are any (see ReplicaReads), each with a pool as large
 * as the primary's. Without replicas it is openStore's store itself, unchanged.
 */
export async function openReadStore(
  settings: StoreSettings & ReplicaSettings,
  log: Logger,
  onRead?: (outcome: ReadOutcome, replica: string | undefined) => void,
): Promise<Store | ReplicaReads> {
  const primary = await openStore(settings, log);
  if (settings.DATABASE_REPLICA_URLS.length === 0) return primary;
  const storeLog = log.child({ component: 'store' });
  const replicas = settings.DATABASE_REPLICA_URLS.map((url) => ({
    name: replicaName(url),
    store: new PgStore({
      connectionString: url,
      maxConnections: poolSizeOf(settings),
      statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
      log: storeLog.child({ replica: replicaName(url) }),
    }),
  }));
  storeLog.info({ replicas: replicas.map((r) => r.name) }, 'reads go to replicas once they replayed the primary');
  return new ReplicaReads({
    primary,
    replicas,
    waitMs: settings.DATABASE_REPLICA_WAIT_MS,
    retryMs: settings.DATABASE_REPLICA_RETRY_MS,
    log: storeLog,
    ...(onRead ? { onRead } : {}),
  });
}

/** host:port, for logs and metric labels: never the user or password the URL may carry. */
export function replicaName(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '5432'}`;
}
