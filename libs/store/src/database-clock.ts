import type { Queryable } from './store.js';

/**
 * The database's clock, read for a statement that then takes it as `$n::timestamptz`.
 *
 * Some times are compared by processes other than the one that wrote them: a lease's end by the
 * replica that would take it over, a retry's due time by whichever worker sweeps next, a
 * deletion's time by the eviction that asks whether a message came after it. Each process's clock
 * is off from the others' by its own skew; the database is the one clock all of them share, so
 * such times come from it, as they did when the statements read now() or clock_timestamp() themselves.
 * They are read first rather than called in the writing statement because a distributed
 * PostgreSQL (Citus) refuses the clock in an upsert's DO UPDATE and an UPDATE's SET
 * (docs/store.md, rule time-in-write). Times only stamping a row take the application's clock
 * instead, without this round trip.
 *
 * As text, so the microseconds a JavaScript Date would drop come back unchanged; read in the
 * caller's transaction when it has one.
 */
export async function databaseNow(q: Queryable): Promise<string> {
  const { rows } = await q.query<{ now: string }>('SELECT clock_timestamp()::text AS now');
  return rows[0]!.now;
}
