import pg from 'pg';
import { isUnavailable } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import { GENERIC_PLAN, GENERIC_PLAN_SETTINGS, type Queryable, type QueryResult, type Store } from './store.js';

export interface PgStoreOptions {
  readonly connectionString: string;
  readonly maxConnections: number;
  readonly statementTimeoutMs: number;
  readonly log: Logger;
  /**
   * Runs on each new connection with the server process's id (the embedded mode lowers the CPU
   * priority of its background connections this way). Failures are logged, not fatal.
   */
  readonly onConnect?: (backendPid: number) => void;
  /** How long a connection that plans generically serves (see GENERIC_PLAN); 5 s unless set. */
  readonly genericPlanLifetimeMs?: number;
  /**
   * false: every statement is planned for its parameters, GENERIC_PLAN ones too. Citus cannot plan
   * a batch insert over unnest() into a distributed table generically ("could not create
   * distributed plan"), even within one shard, so STORE_DISTRIBUTION=citus turns them off.
   */
  readonly genericPlans?: boolean;
  /** How long opening a connection may take; 10 s unless set (a replica's is shorter: the primary can answer instead). */
  readonly connectTimeoutMs?: number;
}

// int8 comes back as a string by default (it may exceed 2^53); our counters and sequence numbers
// never will, and PGlite is configured the same way, so both stores return numbers.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Connections of the generic-plan pool (see GENERIC_PLAN): its statements are few and short. */
const GENERIC_PLAN_CONNECTIONS = 2;

/** How long a connection of the generic-plan pool serves (see the constructor): a reconnection costs a few ms. */
const GENERIC_PLAN_LIFETIME_MS = 5_000;

/**
 * How much longer than the server's statement_timeout the client waits for an answer. The server
 * cancels first whenever it can; the client's own limit is for a server that cannot answer at all
 * (its machine lost or cut off behind a failover, where no TCP reset ever comes), which would
 * otherwise hold the call, and the consumer lane behind it, until the kernel gives up (~15 min).
 */
const CLIENT_TIMEOUT_MARGIN_MS = 5_000;

/**
 * Distinct statements that get a name. Every statement memstream runs is a constant string, so the
 * set is small; the cap only keeps a caller that builds SQL from data from filling each
 * connection's cache of prepared statements.
 */
const MAX_NAMED_STATEMENTS = 500;

export class PgStore implements Store {
  readonly kind = 'pg' as const;
  private readonly pool: pg.Pool;
  /** Connections that plan generically (see GENERIC_PLAN); the main pool when generic plans are off. */
  private readonly genericPool: pg.Pool;
  /** SQL text -> statement name (see `statement`). */
  private readonly names = new Map<string, string>();
  /** Each pooled connection's Queryable, one for its life (see onConnection). */
  private readonly connections = new WeakMap<pg.PoolClient, Queryable>();
  private readonly log: PgStoreOptions['log'];

  constructor(options: PgStoreOptions) {
    this.log = options.log;
    // Named statements (see `statement`) would switch to a generic plan after five runs; for the
    // unnest-based batch statements that plan was 7x slower (the converter's insert: 7.4 ms
    // instead of 1.8 ms for four messages). Planning each run keeps the saving of the parse.
    this.pool = this.openPool(options, options.maxConnections, '-c plan_cache_mode=force_custom_plan');
    // A generic plan is kept for the connection's life, and PostgreSQL makes it again only when
    // the tables' statistics change (an ANALYZE), not as they grow. Made while the tables are
    // nearly empty (a first start, a new database), every index looks as cheap as the key's, and
    // a fresh database's small appends looked messages up through (conversation, created_at),
    // reading the whole conversation, until autovacuum analysed the table. So sequential scans
    // are priced out, and each connection lives GENERIC_PLAN_LIFETIME_MS: its successor plans
    // for the tables as they are by then (from 1,000 messages on, by the key, analysed or not).
    this.genericPool =
      options.genericPlans === false
        ? this.pool
        : this.openPool(
            options,
            Math.min(GENERIC_PLAN_CONNECTIONS, options.maxConnections),
            Object.entries(GENERIC_PLAN_SETTINGS)
              .map(([name, value]) => `-c ${name}=${value}`)
              .join(' '),
            options.genericPlanLifetimeMs ?? GENERIC_PLAN_LIFETIME_MS,
          );
  }

  private openPool(options: PgStoreOptions, max: number, settings: string, lifetimeMs?: number): pg.Pool {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max,
      ...(lifetimeMs === undefined ? {} : { maxLifetimeSeconds: lifetimeMs / 1000 }),
      statement_timeout: options.statementTimeoutMs,
      query_timeout: options.statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
      // an idle pooled connection to a vanished server is found out, not handed to the next caller
      keepAlive: true,
      options: settings,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      types,
    });
    // An idle client losing its connection emits here; without a listener the process would crash.
    pool.on('error', (err) => options.log.error({ err }, 'idle postgres connection failed'));
    const onConnect = options.onConnect;
    if (onConnect) {
      // pg's client learns its server process id from the connection handshake (BackendKeyData).
      pool.on('connect', (client) => {
        try {
          onConnect((client as unknown as { processID: number }).processID);
        } catch (err) {
          options.log.warn({ err }, 'connection set-up failed');
        }
      });
    }
    return pool;
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const pool = sql.startsWith(GENERIC_PLAN) ? this.genericPool : this.pool;
    const result = await pool.query(this.statement(sql, params));
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  }

  /**
   * A named statement: pg parses and plans it once per connection, then only binds and executes
   * it. The write path repeats a handful of statements thousands of times a second; measured in
   * the embedded mode, parsing was a quarter of the server's time per held write.
   */
  private statement(sql: string, params: readonly unknown[]): pg.QueryConfig {
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < MAX_NAMED_STATEMENTS) {
      name = `memstream_${this.names.size}`;
      this.names.set(sql, name);
    }
    return { text: sql, values: params as unknown[], ...(name === undefined ? {} : { name }) };
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql); // no parameters: the simple protocol, which allows several statements
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.checkedOut('a transaction', async (client, broken) => {
      try {
        await client.query('BEGIN');
        const value = await fn(this.on(client));
        await client.query('COMMIT');
        return value;
      } catch (err) {
        // Closing a broken connection rolls back; a ROLLBACK sent to a server that does not
        // answer would only wait out a second timeout.
        if (!broken() && !isUnavailable(err)) await client.query('ROLLBACK').catch(() => undefined); // the original error is what matters
        throw err;
      }
    });
  }

  /**
   * Runs fn's statements on one connection of the pool, each committing on its own: for a
   * statement that must reach the very server an earlier one reached, whatever the address
   * (ReplicaReads's fence behind a load balancer). fn gets the same Queryable each time it gets
   * the same connection, so a caller may remember facts of the server behind it. As in a
   * transaction, a GENERIC_PLAN statement is planned like the others here.
   */
  onConnection<T>(fn: (connection: Queryable) => Promise<T>): Promise<T> {
    return this.checkedOut('a statement', (client) => fn(this.on(client)));
  }

  /**
   * Lends fn a connection of the pool. A checked-out client has lost the pool's error listener: a
   * server that ends the connection while fn waits between two statements (a restart, a
   * failover) would emit an 'error' nobody handles and kill the process. Heard here, the next
   * statement fails with it instead, like any unavailable dependency, and the broken connection
   * is not pooled again. Nor is one that says its server is unavailable (a read-only standby
   * after a failover, a server shutting down or not answering): through a multi-host string,
   * PgBouncer or a DNS name, a kept connection would still reach the demoted node on every retry.
   */
  private async checkedOut<T>(
    during: string,
    fn: (client: pg.PoolClient, broken: () => boolean) => Promise<T>,
  ): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
      this.log.warn({ err }, `postgres connection failed during ${during}`);
    };
    client.on('error', onError);
    try {
      return await fn(client, () => broken !== undefined);
    } catch (err) {
      if (broken === undefined && isUnavailable(err)) broken = err as Error;
      throw err;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  private on(client: pg.PoolClient): Queryable {
    let connection = this.connections.get(client);
    if (connection === undefined) {
      connection = {
        query: async <R>(sql: string, params: readonly unknown[] = []) => {
          const result = await client.query(this.statement(sql, params));
          return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
        },
        exec: async (sql: string) => {
          await client.query(sql);
        },
      };
      this.connections.set(client, connection);
    }
    return connection;
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.genericPool === this.pool ? undefined : this.genericPool.end()]);
  }
}
