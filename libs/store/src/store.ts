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
