import { createCipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * The crypto-shredding candidate of issue 30, as far as the write path goes, so bench:shredding
 * can price it: each person's data key in PostgreSQL (made on first use, cached in the process),
 * and an event's `data` replaced by its AES-256-GCM ciphertext under the sender's key. Only the
 * benchmark uses it: the transport erasure chose deletion (docs/kafka-topics.md#erasure).
 */
export class PersonKeys {
  // The promise is cached, so concurrent writes of one person look their key up once.
  private readonly cache = new Map<string, Promise<{ id: string; key: Buffer }>>();
  misses = 0;

  constructor(private readonly db: pg.Client) {}

  static async create(db: pg.Client): Promise<PersonKeys> {
    await db.query(`CREATE TABLE IF NOT EXISTS person_keys (
      user_id text PRIMARY KEY, key_id uuid NOT NULL DEFAULT gen_random_uuid(), dek bytea NOT NULL)`);
    return new PersonKeys(db);
  }

  of(userId: string): Promise<{ id: string; key: Buffer }> {
    let found = this.cache.get(userId);
    if (!found) {
      this.misses++;
      found = this.lookUp(userId);
      this.cache.set(userId, found);
    }
    return found;
  }

  private async lookUp(userId: string): Promise<{ id: string; key: Buffer }> {
    const { rows } = await this.db.query<{ key_id: string; dek: Buffer }>(
      `WITH made AS (
         INSERT INTO person_keys (user_id, dek) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING RETURNING key_id, dek)
       SELECT key_id, dek FROM made UNION ALL SELECT key_id, dek FROM person_keys WHERE user_id = $1 LIMIT 1`,
      [userId, randomBytes(32)],
    );
    return { id: rows[0]!.key_id, key: rows[0]!.dek };
  }
}

/** `data` as `{ sealed: { kid, iv, tag, ct } }`: the key id, not the person's id, stays readable. */
export function sealData<E extends { data: unknown }>(
  event: E,
  key: { id: string; key: Buffer },
): Omit<E, 'data'> & {
  data: { sealed: { kid: string; iv: string; tag: string; ct: string } };
} {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  const ct = Buffer.concat([cipher.update(JSON.stringify(event.data), 'utf8'), cipher.final()]);
  return {
    ...event,
    data: {
      sealed: {
        kid: key.id,
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        ct: ct.toString('base64'),
      },
    },
  };
}
