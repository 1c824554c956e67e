/**
 * Filler for the latency run at scale: other groups' messages written straight into the embedded
 * PostgreSQL (conversations, messages and their search rows: a tsvector of words from a fixed
 * vocabulary and a random unit-ish vector under the current model's name). Embedding 100,000
 * turns would take the run most of an hour, and latency depends on the rows' number and shape,
 * not on what their vectors mean.
 */
import pg from 'pg';
import { insertSearchRowsSql, vectorIndexName } from '@memstream/store';
import { WORDS } from './words.js';

/** Adds `messages` filler messages in groups of 100, under the model (and dimension) the benchmark's own rows were embedded with. */
export async function addFiller(url: string, messages: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ model: string; dims: number }>(
      `SELECT embedding_model AS model, vector_dims(embedding) AS dims FROM search_vectors WHERE kind = 'message' LIMIT 1`,
    );
    const { model, dims: dimension } = rows[0]!;
    await client.query('SET statement_timeout = 0');
    // Inserting 100,000 vectors into the model's HNSW index one by one takes many minutes; building
    // it again over all of them takes one (the same index in the end).
    const index = vectorIndexName(model, dimension);
    const { rows: defs } = await client.query<{ def: string }>(
      `SELECT indexdef AS def FROM pg_indexes WHERE indexname = $1`,
      [index],
    );
    await client.query(`DROP INDEX IF EXISTS ${index}`);
    const perGroup = 100;
    const groups = Math.ceil(messages / perGroup);
    // Idle for long (updated long ago): the summarizer's and extractor's sweeps look at recent
    // conversations only, so the filler adds rows to search, not background work to the run.
    await client.query(
      `INSERT INTO conversations (id, group_key, source_api, next_seq, created_at, updated_at)
       SELECT 'filler-' || g, 'filler-' || g, 'evermemos', LEAST($2, $3 - (g - 1) * $2), timestamptz '2023-01-01', timestamptz '2023-01-01' FROM generate_series(1, $1) g`,
      [groups, perGroup, messages],
    );
    await client.query(
      `INSERT INTO messages (conversation_id, group_key, seq, message_id, sender_id, sender_name, role, content, created_at, source_api)
       SELECT 'filler-' || c, 'filler-' || c, s, 'f' || c || '-' || s, 'p' || (s % 2), 'Person ' || (s % 2), 'user', t.text,
              timestamptz '2023-01-01' + ((c * 100 + s) * interval '7 minutes'), 'evermemos'
       FROM generate_series(1, $1::int) c, generate_series(0, $2::int - 1) s,
            LATERAL (SELECT string_agg(($3::text[])[1 + floor(random() * array_length($3::text[], 1))::int], ' ') AS text
                     FROM generate_series(1, 14 + 0 * s + 0 * c)) t
       WHERE (c - 1) * $2 + s < $4`,
      [groups, perGroup, WORDS, messages],
    );
    await client.query(
      `WITH ${insertSearchRowsSql(
        'searchable',
        'message',
        `SELECT m.group_key, 'message', m.id::text, m.conversation_id, m.sender_id, m.sender_name || ': ' || m.content,
                m.created_at, ARRAY[m.message_id], to_tsvector('english', m.sender_name || ': ' || m.content), NULL
         FROM messages m WHERE m.conversation_id LIKE 'filler-%'`,
      )}
       SELECT count(*) FROM searchable`,
    );
    await client.query(
      `INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, embedding, embedding_model)
       SELECT m.group_key, 'message', m.id::text, m.conversation_id, m.sender_id, m.created_at,
              (SELECT array_agg(random() - 0.5 + 0 * g + 0 * m.seq) FROM generate_series(1, ${dimension}) g)::vector, $1
       FROM messages m WHERE m.conversation_id LIKE 'filler-%'`,
      [model],
    );
    await client.query(`SET maintenance_work_mem = '1GB'`);
    for (const { def } of defs) await client.query(def);
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}
