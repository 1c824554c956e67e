export interface QueryResult<R> {
  readonly rows: R[];
  /** Rows inserted, updated or deleted (0 for a SELECT on PGlite; pg counts selected rows). */
  readonly rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * One query interface over a pg Pool (both modes: the embedded one runs its own server) and
 * PGlite (the embedded mode's opt-in WASM store). Both run the
 * same SQL and return the same JavaScript types: int8 as number, timestamptz as Date, jsonb parsed.
 */
export interface Store extends Queryable {
  readonly kind: 'pg' | 'pglite';
  /** Runs fn in one transaction on one connection; commits if it resolves, rolls back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers; the readiness check of every process with a store. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A store whose statements can share one connection outside a transaction (PgStore; see ReplicaReads). */
export interface OneConnection {
  /** fn's statements all run on one connection; the same connection is lent as the same Queryable. */
  onConnection<T>(fn: (connection: Queryable) => Promise<T>): Promise<T>;
}

/**
 * A statement whose text opens with this comment runs with a generic plan: planned once per
 * connection, then only bound and executed. Every other statement is planned for its parameters
 * at each run (see PgStore's pools), which the batch statements need: a plan made for no
 * particular batch size was several times slower for a batch of thousands. But planning the
 * append statement costs about a millisecond, which for a batch of a few messages (a held write
 * under light load) was most of PostgreSQL's time per message (server CPU a message, planned each
 * time against planned once: 577 against 294 µs in batches of 4, 312 against 195 in batches of 8,
 * 200 against 150 in batches of 26, the same at 128). So a statement whose plan does not depend
 * on its size, or that is only ever run small, says so with this comment, and PgStore runs it on
 * connections of a second, small pool that plan generically. Such a statement must find its rows
 * by key: that pool prices sequential scans out (see PgStore's constructor). Inside a transaction
 * the comment changes nothing: the statement runs on the transaction's connection, planned as the
 * others are. To PGlite it is a comment.
 */
export const GENERIC_PLAN = '/* generic plan */';

/** The settings of the connections that run GENERIC_PLAN statements (see PgStore's constructor). */
export const GENERIC_PLAN_SETTINGS = { plan_cache_mode: 'force_generic_plan', enable_seqscan: 'off' } as const;
