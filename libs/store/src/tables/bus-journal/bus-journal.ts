import type { BusJournal, BusRecord, GroupPosition, JournalContents, TrimPoint } from '@memstream/bus';
import type { Queryable } from '../../store.js';

interface RecordRow {
  topic: string;
  partition: number;
  record_offset: number;
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
}

interface PositionRow {
  topic: string;
  group_id: string;
  partition: number;
  next_offset: number;
}

/**
 * The in-process bus's journal in PostgreSQL (tables of migration 0006). Each call is one
 * statement, so an append of a whole tick's records is one round trip and one commit, and all or
 * nothing. Durability is the server's: with synchronous_commit on (the default) a resolved append
 * has reached its WAL on disk.
 */
export function storeBusJournal(q: Queryable): BusJournal {
  return {
    load: () => loadJournal(q),
    append: (records) => appendJournal(q, records),
    commit: (positions) => commitJournalPositions(q, positions),
    trim: (points) => trimJournal(q, points),
  };
}

async function loadJournal(q: Queryable): Promise<JournalContents> {
  const records = await q.query<RecordRow>(
    'SELECT topic, partition, record_offset, key, value, headers FROM bus_journal ORDER BY topic, partition, record_offset',
  );
  const positions = await q.query<PositionRow>(
    'SELECT topic, group_id, partition, next_offset FROM bus_journal_positions',
  );
  return {
    records: records.rows.map(
      (r): BusRecord => ({
        topic: r.topic,
        partition: r.partition,
        offset: String(r.record_offset),
        key: r.key,
        value: r.value,
        headers: r.headers,
      }),
    ),
    positions: positions.rows.map((p) => ({
      topic: p.topic,
      groupId: p.group_id,
      partition: p.partition,
      offset: p.next_offset,
    })),
  };
}

// An offset written again replaces its record: the bus reuses the offsets of an append that failed,
// and one that failed after the server committed it must not keep the rejected records in place of
// the new ones.
async function appendJournal(q: Queryable, records: readonly BusRecord[]): Promise<void> {
  if (records.length === 0) return;
  await q.query(
    `INSERT INTO bus_journal (topic, partition, record_offset, key, value, headers)
     SELECT topic, partition, record_offset, key, value, headers::jsonb
     FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[], $5::bytea[], $6::text[])
       AS t(topic, partition, record_offset, key, value, headers)
     ON CONFLICT (topic, partition, record_offset)
     DO UPDATE SET key = EXCLUDED.key, value = EXCLUDED.value, headers = EXCLUDED.headers`,
    [
      records.map((r) => r.topic),
      records.map((r) => r.partition),
      records.map((r) => r.offset),
      records.map((r) => r.key),
      records.map((r) => r.value),
      records.map((r) => JSON.stringify(r.headers)),
    ],
  );
}

async function commitJournalPositions(q: Queryable, positions: readonly GroupPosition[]): Promise<void> {
  if (positions.length === 0) return;
  await q.query(
    `INSERT INTO bus_journal_positions (topic, group_id, partition, next_offset)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[])
     ON CONFLICT (topic, group_id, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset`,
    [
      positions.map((p) => p.topic),
      positions.map((p) => p.groupId),
      positions.map((p) => p.partition),
      positions.map((p) => p.offset),
    ],
  );
}

async function trimJournal(q: Queryable, points: readonly TrimPoint[]): Promise<void> {
  if (points.length === 0) return;
  await q.query(
    `DELETE FROM bus_journal j
     USING unnest($1::text[], $2::int[], $3::bigint[]) AS t(topic, partition, below)
     WHERE j.topic = t.topic AND j.partition = t.partition AND j.record_offset < t.below`,
    [points.map((p) => p.topic), points.map((p) => p.partition), points.map((p) => p.offset)],
  );
}
