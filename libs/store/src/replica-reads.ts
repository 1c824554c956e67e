import { isUnavailable } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import { FreshRead } from './fresh-read.js';
import { fromLsn, isReadOnly } from './read-only-sql.js';
import type { OneConnection, Queryable, QueryResult, Store } from './store.js';

export interface ReplicaReadsOptions {
  readonly primary: Store;
  /**
   * Streaming replicas of the primary (hot standbys), each named for logs and metrics by its
   * host:port. An address may spread its connections over several replicas (a Kubernetes
   * read-only Service, a load balancer): a read's fence and statement share one connection.
   */
  readonly replicas: readonly { readonly name: string; readonly store: Store & OneConnection }[];
  /** How long a read waits for a replica to replay the primary's position before it reads the primary instead. */
  readonly waitMs: number;
  /** How long a replica that failed is left out before a read tries it again. */
  readonly retryMs: number;
  readonly log: Logger;
  /** Called once per read statement with where it was answered from. */
  readonly onRead?: (outcome: ReadOutcome, replica: string | undefined) => void;
}

/** Where a read was answered: a replica, or the primary because the replica lagged, failed, or none was up. */
export type ReadOutcome = 'replica' | 'primary_lagging' | 'primary_unavailable';

export interface ReplicaLag {
  readonly replica: string;
  readonly up: boolean;
  /** WAL bytes the replica has still to replay of what the primary flushed; undefined when down. */
  readonly bytes: number | undefined;
  /** Seconds since the replica replayed its last transaction, 0 when it has replayed everything. */
  readonly seconds: number | undefined;
}

const PRIMARY_POSITION = 'SELECT pg_current_wal_flush_lsn()::text AS lsn';
const REPLAYED = 'SELECT pg_last_wal_replay_lsn()::text AS lsn';
const REPLAY_POSITION = `SELECT pg_last_wal_replay_lsn()::text AS lsn,
  extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8 AS seconds`;

/**
 * The read API's store with streaming replicas behind it, keeping read-your-writes. Every
 * acknowledged write was committed on the primary before its answer, and a commit returns only
 * once its WAL is flushed (synchronous_commit is never relaxed), so the primary's flush position,
 * read after a read arrives, covers every change answered before it: a grant revoked, a message
 * stored, a person erased. A read statement waits until a replica has replayed that far, then runs
 * there; a replica that does not get there within `waitMs`, or fails, hands the read to the
 * primary, so no read is answered from an older state than the primary's at its arrival, access
 * decisions included. The position is one tiny query per batch of concurrent reads (FreshRead).
 * The replay is asked on the connection that then runs the statement: through an address that
 * spreads connections over several servers, a replay read on one connection says nothing of the
 * server behind the next (a read could miss a revocation that way). A connection stays on its
 * server, whose replay only moves forward, so what a connection last read is remembered, and a
 * read whose position it already covers (no write since) skips the question.
 * Everything else (writes, transactions, a statement that locks or changes anything) runs on the
 * primary; a replica refusing a statement as a write sends it there too.
 */
export class ReplicaReads implements Store {
  readonly kind = 'pg' as const;
  private readonly primary: Store;
  private readonly replicas: Replica[];
  private readonly primaryPosition: FreshRead<bigint>;
  private readonly lagReading: FreshRead<ReplicaLag[]>;
  /** Where the server behind each replica connection had replayed to, as last read on it. */
  private readonly replayedOn = new WeakMap<Queryable, bigint>();
  private next = 0;

  constructor(private readonly options: ReplicaReadsOptions) {
    this.primary = options.primary;
    this.replicas = options.replicas.map((r) => new Replica(r.name, r.store, options.retryMs, options.log));
    this.primaryPosition = new FreshRead(async () => {
      const { rows } = await this.primary.query<{ lsn: string }>(PRIMARY_POSITION);
      return fromLsn(rows[0]!.lsn);
    });
    this.lagReading = new FreshRead(() => this.readLag());
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    if (!isReadOnly(sql)) return this.primary.query<R>(sql, params);
    const replica = this.pick();
    if (!replica) return this.onPrimary('primary_unavailable', undefined, sql, params);
    const position = await this.primaryPosition.get();
    const deadline = Date.now() + this.options.waitMs;
    let result: QueryResult<R> | undefined;
    try {
      result = await replica.store.onConnection(async (connection) =>
        (await this.replayed(connection, replica.name, position, deadline))
          ? connection.query<R>(sql, params)
          : undefined,
      );
    } catch (err) {
      if (ownError(err)) throw err;
      replica.failed(err);
      return this.onPrimary('primary_unavailable', replica.name, sql, params);
    }
    if (result === undefined) {
      replica.lagged();
      return this.onPrimary('primary_lagging', replica.name, sql, params);
    }
    this.options.onRead?.('replica', replica.name);
    return result;
  }

  /**
   * Resolves true once the server behind `connection` has replayed `position`, false at
   * `deadline`. Replay on a healthy replica trails by milliseconds, so it is asked again after 1,
   * 2, 4... up to 16 ms.
   */
  private async replayed(connection: Queryable, name: string, position: bigint, deadline: number): Promise<boolean> {
    if ((this.replayedOn.get(connection) ?? -1n) >= position) return true;
    let pauseMs = 1;
    for (;;) {
      const { rows } = await connection.query<{ lsn: string | null }>(REPLAYED);
      const lsn = fromLsn(replayLsn(name, rows[0]?.lsn));
      this.replayedOn.set(connection, lsn);
      if (lsn >= position) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pauseMs, deadline - Date.now()))));
      pauseMs = Math.min(pauseMs * 2, 16);
    }
  }

  /**
   * Each replica's distance behind the primary, read now (for /metrics; concurrent callers share
   * one reading). Per address: behind one that spreads connections, it is whichever server answered.
   */
  lag(): Promise<ReplicaLag[]> {
    return this.lagReading.join();
  }

  exec(sql: string): Promise<void> {
    return this.primary.exec(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.primary.transaction(fn);
  }

  /** Ready while the primary answers: a read falls back to it whenever no replica can serve. */
  ping(): Promise<void> {
    return this.primary.ping();
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), ...this.replicas.map((r) => r.store.close())]);
  }

  /** The next replica that has not failed lately, round robin. */
  private pick(): Replica | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length]!;
      if (replica.usable()) {
        this.next = (this.next + i + 1) % this.replicas.length;
        return replica;
      }
    }
    return undefined;
  }

  private async onPrimary<R>(
    outcome: ReadOutcome,
    replica: string | undefined,
    sql: string,
    params: readonly unknown[],
  ): Promise<QueryResult<R>> {
    this.options.onRead?.(outcome, replica);
    return this.primary.query<R>(sql, params);
  }

  private async readLag(): Promise<ReplicaLag[]> {
    const primary = await this.primaryPosition.get();
    return Promise.all(
      this.replicas.map(async (r): Promise<ReplicaLag> => {
        try {
          const at = await r.read();
          const bytes = primary > at.lsn ? Number(primary - at.lsn) : 0;
          return { replica: r.name, up: true, bytes, seconds: bytes === 0 ? 0 : Math.max(0, at.seconds ?? 0) };
        } catch {
          return { replica: r.name, up: false, bytes: undefined, seconds: undefined };
        }
      }),
    );
  }
}

/** NULL: the server is not in recovery, so not a replica of anything (promoted, or misnamed). */
function replayLsn(name: string, lsn: string | null | undefined): string {
  if (!lsn) throw Object.assign(new Error(`${name} is not a streaming replica`), { code: 'NOT_REPLICA' });
  return lsn;
}

/** The statement's own failure (bad input, a timeout), which the primary would give too. */
function ownError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (isUnavailable(err) || typeof code !== 'string') return false;
  return /^(22|23|42|54)/.test(code) || code === '57014';
}

/** A replica address: whether it failed or lagged lately, and its replay as last read for /metrics. */
class Replica {
  private downUntil = 0;
  private readonly reading: FreshRead<{ lsn: bigint; seconds: number | null }>;

  constructor(
    readonly name: string,
    readonly store: Store & OneConnection,
    private readonly retryMs: number,
    private readonly log: Logger,
  ) {
    this.reading = new FreshRead(async () => {
      const { rows } = await this.store.query<{ lsn: string | null; seconds: number | null }>(REPLAY_POSITION);
      return { lsn: fromLsn(replayLsn(name, rows[0]?.lsn)), seconds: rows[0]!.seconds };
    });
  }

  usable(): boolean {
    return Date.now() >= this.downUntil;
  }

  read(): Promise<{ lsn: bigint; seconds: number | null }> {
    return this.reading.join();
  }

  /**
   * It did not replay in time: the reads that follow go to the primary at once for a while,
   * instead of each waiting the full bound behind a replica that is replaying a backlog.
   */
  lagged(): void {
    if (this.usable()) this.log.warn({ replica: this.name }, 'replica lags: reads go to the primary for a while');
    this.downUntil = Date.now() + this.retryMs;
  }

  failed(err: unknown): void {
    const wasUp = this.usable();
    // A statement a standby refuses (a write it could not tell, a conflict with replay) says nothing of its health.
    const code = (err as { code?: unknown }).code;
    if (code === '25006' || code === '40001') return;
    this.downUntil = Date.now() + this.retryMs;
    if (wasUp) this.log.warn({ err, replica: this.name }, 'replica unavailable: reads go to the primary');
  }
}
